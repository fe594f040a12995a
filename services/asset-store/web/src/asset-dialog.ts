import { API, ApiError, store, type Asset } from './api.js';
import { mediaView, type MediaView } from './media.js';
import { announce, byId, formatBytes, formatTime, h } from './dom.js';
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

/** The asset asked for last (its record may still be on its way). */
let latest = '';
/** The open viewer's keys; on the document, so they work wherever focus sits in the page. */
let keys: ((e: KeyboardEvent) => void) | undefined;
document.addEventListener('keydown', (e) => keys?.(e));

/**
 * The asset viewer, a full-screen modal dialog: the asset at full size (zoomable image, the
 * browser's players for video, audio and PDF, text), previous and next through `nav`'s list
 * (arrow keys), metadata, download, tags and description editing, trash and restore, and
 * the corrupted state said plainly. `changed` is told of every change made; `closed` when
 * the dialog closes (Escape, the Close button).
 */
export async function showAsset(
  hash: string,
  changed: (asset: Asset) => void,
  closed: () => void,
  nav?: ViewerNav,
): Promise<void> {
  const dialog = byId<HTMLDialogElement>('asset-dialog');
  // Keys pressed before this one's record arrives move on from it, not from the last shown.
  latest = hash;
  let asset: Asset;
  try {
    asset = await store.meta(hash);
  } catch (err) {
    announce(err instanceof ApiError ? err.message : 'The asset store did not answer.');
    closed();
    return;
  }
  let media: MediaView | undefined;
  const render = () => {
    media?.dispose();
    dialog.replaceChildren(content(asset));
  };
  dialog.onclose = () => {
    media?.dispose();
    keys = undefined;
    dialog.replaceChildren();
    closed();
  };
  const neighbours = () => {
    const list = nav?.list() ?? [];
    const at = list.findIndex((x) => x.hash === hash);
    return { list, at };
  };
  const step = (by: number) => {
    const list = nav?.list() ?? [];
    const at = list.findIndex((x) => x.hash === latest);
    const next = at < 0 ? undefined : list[at + by];
    if (next && nav) nav.go(next.hash);
  };
  keys = (e: KeyboardEvent) => {
    // Keys typed into the edit form are the form's.
    if ((e.target as Element).closest?.('input, textarea, select, video, audio')) return;
    const keys: Record<string, () => unknown> = {
      ArrowRight: () => step(1),
      ArrowLeft: () => step(-1),
      '+': () => media?.zoom(1.5),
      '=': () => media?.zoom(1.5),
      '-': () => media?.zoom(1 / 1.5),
      '0': () => media?.zoom(1),
    };
    const act = keys[e.key];
    if (!act || e.ctrlKey || e.metaKey || e.altKey) return;
    e.preventDefault();
    act();
  };
  render();
  if (!dialog.open) dialog.showModal();
  // The content was replaced (another asset): focus stays in the dialog, not on the page.
  if (!dialog.contains(document.activeElement)) dialog.focus();
  async function refresh() {
    asset = await store.meta(hash);
    changed(asset);
    render();
  }
  function content(a: Asset) {
    const name = a.human_filename ?? a.hash;
    const error = h('p', { class: 'error', role: 'alert' });
    media = mediaView(a, name);
    const { list, at } = neighbours();
    const zoomable = a.mime_type.toLowerCase().startsWith('image/') && !a.is_corrupted;
    const tags = h('input', { id: 'edit-tags', value: a.tags.join(', '), autocomplete: 'off' });
    const description = h('textarea', { id: 'edit-description', rows: 3 }, a.description ?? '');
    const act = (label: string, run: () => Promise<void>, done: string) => async () => {
      error.textContent = '';
      try {
        await run();
        await refresh();
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
    const toolbar = h(
      'div',
      { class: 'viewer-tools' },
      h('h2', { id: 'asset-title' }, name),
      h(
        'button',
        {
          type: 'button',
          disabled: at <= 0,
          onclick: () => step(-1),
          'aria-keyshortcuts': 'ArrowLeft',
        },
        '‹ Previous',
      ),
      at >= 0 ? h('span', { class: 'position' }, `${at + 1} of ${list.length}`) : null,
      h(
        'button',
        {
          type: 'button',
          disabled: at < 0 || at >= list.length - 1,
          onclick: () => step(1),
          'aria-keyshortcuts': 'ArrowRight',
        },
        'Next ›',
      ),
      zoomable
        ? h(
            'button',
            { type: 'button', onclick: () => media?.zoom(1 / 1.5), 'aria-keyshortcuts': '-' },
            'Zoom out',
          )
        : null,
      zoomable
        ? h(
            'button',
            { type: 'button', onclick: () => media?.zoom(1.5), 'aria-keyshortcuts': '+' },
            'Zoom in',
          )
        : null,
      zoomable
        ? h(
            'button',
            { type: 'button', onclick: () => media?.zoom(1), 'aria-keyshortcuts': '0' },
            'Fit',
          )
        : null,
      h('button', { type: 'button', class: 'close', onclick: () => dialog.close() }, 'Close'),
    );
    const side = h(
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
    return h(
      'article',
      { class: 'asset viewer' },
      toolbar,
      h('div', { class: 'viewer-body' }, media.element, side),
    );
  }
}

/** How the viewer moves through the list it was opened from. */
export interface ViewerNav {
  /** The assets in order (those loaded). */
  list: () => Asset[];
  /** Shows another one. */
  go: (hash: string) => void;
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
