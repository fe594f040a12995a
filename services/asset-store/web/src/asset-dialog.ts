import { ApiError, store, type Asset } from './api.js';
import { detailsPanel } from './asset-details.js';
import { mediaView, type MediaView } from './media.js';
import { announce, byId, h } from './dom.js';

/** The asset asked for last (its record may still be on its way). */
let latest = '';
/** The asset on screen and how to draw its details again. */
let shown: { hash: string; update: () => Promise<void> } | undefined;
/** The open viewer's keys; on the document, so they work wherever focus sits in the page. */
let keys: ((e: KeyboardEvent) => void) | undefined;
document.addEventListener('keydown', (e) => keys?.(e));

/**
 * The asset viewer, a full-screen modal dialog: the asset at full size (zoomable image, the
 * browser's players for video, audio and PDF, text), previous and next through `nav`'s list
 * (arrow keys), and beside it the asset's details (`detailsPanel`). `changed` is told of
 * every change made here; `closed` when the dialog closes (Escape, the Close button).
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
    shown = undefined;
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
  shown = {
    hash,
    // Only the details: the media keeps its place (a video playing, a zoom, a PDF's page).
    update: async () => {
      const fresh = await store.meta(hash);
      const side = dialog.querySelector('.side');
      if (shown?.hash !== hash || !side || side.querySelector('form.edit[data-dirty]')) return;
      asset = fresh;
      side.replaceWith(detailsPanel(asset, asset.human_filename ?? asset.hash, refresh));
    },
  };
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
    media = mediaView(a, name);
    const { list, at } = neighbours();
    const zoomable = a.mime_type.toLowerCase().startsWith('image/') && !a.is_corrupted;
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
    return h(
      'article',
      { class: 'asset viewer' },
      toolbar,
      h('div', { class: 'viewer-body' }, media.element, detailsPanel(a, name, refresh)),
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

/**
 * The asset changed elsewhere (the change feed): if the viewer shows it, its details are read
 * and drawn again, unless an edit is being typed there.
 */
export function assetChanged(hash: string): void {
  if (shown?.hash === hash) void shown.update().catch(() => undefined);
}
