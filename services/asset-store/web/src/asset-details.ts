import { API, ApiError, store, type Asset } from './api.js';
import { announce, formatBytes, formatTime, h } from './dom.js';
import { getToken } from './session.js';

/** Splits the tags field like the service does: on commas, trimmed, empty ones dropped. */
function splitTags(text: string): string[] {
  return [
    ...new Set(
      text
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== ''),
    ),
  ];
}

/**
 * The viewer's side panel for one asset: its corrupted state said plainly, every metadata
 * field, the tags and description form (Save: `PATCH`), Download, and Move to trash or
 * Restore. After each change `changed` reads the record again (the viewer draws anew).
 */
export function detailsPanel(a: Asset, name: string, changed: () => Promise<void>): HTMLElement {
  const error = h('p', { class: 'error', role: 'alert' });
  const tags = h('input', { id: 'edit-tags', value: a.tags.join(', '), autocomplete: 'off' });
  const description = h('textarea', { id: 'edit-description', rows: 3 }, a.description ?? '');
  const act = (label: string, run: () => Promise<void>, done: string) => async () => {
    error.textContent = '';
    try {
      await run();
      await changed();
      announce(done);
    } catch (err) {
      error.textContent = err instanceof ApiError ? err.message : `${label} failed.`;
    }
  };
  const save = act(
    'Saving',
    () => store.update(a.hash, { tags: splitTags(tags.value), description: description.value }),
    'Saved.',
  );
  const trash = act(
    'Trash',
    () => (a.is_trashed ? store.restore(a.hash) : store.trash(a.hash)),
    a.is_trashed ? 'Restored.' : 'Moved to trash.',
  );
  const rows: [string, string | undefined][] = [
    ['Hash', a.hash],
    ['Type', a.mime_type],
    ...contentRows(a),
    ['Stored', formatTime(a.timestamp)],
    ['File name', a.human_filename],
    ['Path', a.human_path],
    ['Application', a.application],
    ['User', a.user],
    ['Tags', a.tags.length ? a.tags.join(', ') : '(none)'],
    ['Description', a.description],
    ['In trash', a.is_trashed ? 'yes' : 'no'],
    ['Corrupted', a.is_corrupted ? 'yes' : 'no'],
  ];
  return h(
    'div',
    { class: 'side' },
    a.is_corrupted
      ? h(
          'p',
          { class: 'corrupted', role: 'alert' },
          'Corrupted: the stored file no longer matches its hash (or is missing). It cannot be downloaded; restore it from a backup and run a verify.',
        )
      : null,
    h(
      'dl',
      { class: 'meta' },
      ...rows
        .filter(([, v]) => v !== undefined)
        .flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
    ),
    h(
      'form',
      {
        class: 'edit',
        'aria-label': 'Edit tags and description',
        // Typed into: a change made elsewhere does not redraw the panel over the edit.
        oninput: (e: Event) => ((e.currentTarget as HTMLElement).dataset.dirty = 'true'),
        onsubmit: (e: SubmitEvent) => {
          e.preventDefault();
          void save();
        },
      },
      h('label', { for: 'edit-tags' }, 'Tags (comma-separated)'),
      tags,
      h('label', { for: 'edit-description' }, 'Description'),
      description,
      h('button', { type: 'submit' }, 'Save'),
    ),
    error,
    h(
      'div',
      { class: 'actions' },
      a.is_corrupted ? null : downloadButton(a, name),
      h(
        'button',
        { type: 'button', onclick: () => void trash() },
        a.is_trashed ? 'Restore' : 'Move to trash',
      ),
    ),
  );
}

/** The fields derived from the content (contract, part 2); absent on an older store. */
export type ContentFields = {
  size?: number | null;
  width?: number | null;
  height?: number | null;
  taken_at?: number | null;
};

/** Size, dimensions and the time taken, as rows of the metadata list (only those known). */
export function contentRows(a: Asset): [string, string | undefined][] {
  const c = a as Asset & ContentFields;
  return [
    [
      'Size',
      typeof c.size === 'number'
        ? `${formatBytes(c.size)} (${c.size.toLocaleString()} bytes)`
        : undefined,
    ],
    [
      'Dimensions',
      typeof c.width === 'number' && typeof c.height === 'number'
        ? `${c.width} × ${c.height} px`
        : undefined,
    ],
    ['Taken', typeof c.taken_at === 'number' ? formatTime(c.taken_at) : undefined],
  ];
}

/**
 * A plain link when no token is needed (the browser streams the file); with a token, the
 * bytes are fetched with it and saved from memory.
 */
function downloadButton(a: Asset, name: string): HTMLElement {
  const href = `${API}/asset/${a.hash}`;
  if (!getToken('api')) return h('a', { class: 'button', href, download: name }, 'Download');
  return h(
    'button',
    {
      type: 'button',
      onclick: () => {
        void store
          .download(a.hash)
          .then((blob) => {
            const url = URL.createObjectURL(blob);
            const link = h('a', { href: url, download: name });
            link.click();
            setTimeout(() => URL.revokeObjectURL(url), 60_000);
          })
          .catch((err: unknown) =>
            announce(err instanceof ApiError ? err.message : 'Download failed.'),
          );
      },
    },
    'Download',
  );
}
