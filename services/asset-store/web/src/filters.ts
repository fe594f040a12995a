import type { GridQuery } from './grid.js';
import { h } from './dom.js';

const TEXT_FIELDS: [name: string, label: string, hint?: string][] = [
  ['path', 'Folder', 'e.g. photos/2026'],
  ['tags', 'Tags', 'comma-separated; all must be present'],
  ['hash', 'Hash prefix'],
  ['application', 'Application'],
  ['user', 'User'],
  ['sha256', 'Content SHA-256'],
];

/**
 * The grid's query from the page URL's search parameters (the filters live in the URL). The
 * grid is a timeline: `/search` sorted by date taken, else ingest time (`sort=taken`), so a
 * photo from 2019 uploaded today sits among 2019's, and each day's heading comes once. A
 * `sort` in the URL (`sort=timestamp`: ingest order) wins.
 */
export function queryFromUrl(search: string): GridQuery {
  const url = new URLSearchParams(search);
  const params = new URLSearchParams();
  for (const [key, value] of url) if (value !== '') params.set(key, value);
  if (!params.has('sort')) params.set('sort', 'taken');
  return { endpoint: 'search', params };
}

/** The type filter's choices: whole families (`image/*`) and the common exact types. */
const TYPES: [value: string, label: string][] = [
  ['', 'Any type'],
  ['image/*', 'Images'],
  ['video/*', 'Videos'],
  ['audio/*', 'Audio'],
  ['text/*', 'Text'],
  ['application/pdf', 'PDF'],
  ['application/json', 'JSON'],
  ['application/*', 'Other files (application/*)'],
];

/** `datetime-local` value ↔ epoch ms (the API's times). */
function toLocalInput(ms: string | null): string {
  if (!ms) return '';
  const d = new Date(Number(ms));
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/**
 * The filter form: every search filter, the sort and order, and the two switches.
 * Submitting puts them in the URL (so a filtered view can be bookmarked) and calls `apply`.
 */
export function filterForm(search: string, apply: (search: string) => void): HTMLFormElement {
  const current = new URLSearchParams(search);
  const field = (name: string, label: string, hint?: string) =>
    h(
      'div',
      { class: 'field' },
      h('label', { for: `f-${name}` }, label),
      h('input', {
        id: `f-${name}`,
        name,
        type: 'search',
        value: current.get(name) ?? '',
        placeholder: hint,
        autocomplete: 'off',
      }),
    );
  const time = (name: string, label: string) =>
    h(
      'div',
      { class: 'field' },
      h('label', { for: `f-${name}` }, label),
      h('input', {
        id: `f-${name}`,
        name,
        type: 'datetime-local',
        step: 1,
        value: toLocalInput(current.get(name)),
      }),
    );
  const check = (name: string, label: string) =>
    h(
      'div',
      { class: 'check' },
      h('input', {
        id: `f-${name}`,
        name,
        type: 'checkbox',
        checked: current.get(name) === 'true',
      }),
      h('label', { for: `f-${name}` }, label),
    );
  const type = current.get('mime_type') ?? '';
  const types = TYPES.some(([value]) => value === type) ? TYPES : [...TYPES, [type, type]];
  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Filter assets' },
    h(
      'div',
      { class: 'field wide' },
      h('label', { for: 'f-q' }, 'Search'),
      h('input', {
        id: 'f-q',
        name: 'q',
        type: 'search',
        value: current.get('q') ?? '',
        placeholder: 'name, folder, description or tag',
        autocomplete: 'off',
      }),
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'f-mime_type' }, 'Type'),
      h(
        'select',
        { id: 'f-mime_type', name: 'mime_type' },
        ...types.map(([value, label]) => h('option', { value, selected: value === type }, label)),
      ),
    ),
    ...TEXT_FIELDS.map(([name, label, hint]) => field(name, label, hint)),
    time('start_time', 'From'),
    time('end_time', 'Until'),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'f-sort' }, 'Sort by'),
      h(
        'select',
        { id: 'f-sort', name: 'sort' },
        h(
          'option',
          { value: 'taken', selected: current.get('sort') !== 'timestamp' },
          'Date taken',
        ),
        h(
          'option',
          { value: 'timestamp', selected: current.get('sort') === 'timestamp' },
          'Upload time',
        ),
      ),
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'f-order' }, 'Order'),
      h(
        'select',
        { id: 'f-order', name: 'order' },
        h('option', { value: 'desc', selected: current.get('order') !== 'asc' }, 'Newest first'),
        h('option', { value: 'asc', selected: current.get('order') === 'asc' }, 'Oldest first'),
      ),
    ),
    check('include_trashed', 'Include trashed'),
    check('include_corrupted', 'Include corrupted'),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit' }, 'Search'),
      h('button', { type: 'button', onclick: () => apply('') }, 'Clear'),
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    apply(formToSearch(form));
  });
  return form;
}

/** Choices that are the grid's defaults, left out of the URL. */
const DEFAULTS = new Set(['order=desc', 'sort=taken']);

function formToSearch(form: HTMLFormElement): string {
  const out = new URLSearchParams();
  for (const el of form.querySelectorAll<HTMLInputElement | HTMLSelectElement>('[name]')) {
    if (el instanceof HTMLInputElement && el.type === 'checkbox') {
      if (el.checked) out.set(el.name, 'true');
    } else if (el instanceof HTMLInputElement && el.type === 'datetime-local') {
      if (el.value) out.set(el.name, String(new Date(el.value).getTime()));
    } else if (el.value.trim() !== '' && !DEFAULTS.has(`${el.name}=${el.value}`)) {
      out.set(el.name, el.value.trim());
    }
  }
  const text = out.toString();
  return text === '' ? '' : `?${text}`;
}
