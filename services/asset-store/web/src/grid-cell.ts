import type { Asset } from './api.js';
import { append, formatBytes, h } from './dom.js';
import { loadThumb, type Need } from './thumbs.js';

/** What a cell asks of its grid. */
export interface CellHooks {
  /** It holds the grid's keyboard focus (the one cell in the tab order). */
  focused: boolean;
  /** Clicked: the grid moves its focus here and opens the asset, if loaded. */
  open: (asset: Asset | undefined) => void;
  /** In the selection. */
  selected: boolean;
  /** Its check box clicked, or the cell with Ctrl/Cmd or Shift: select (a range with Shift). */
  toggle: (range: boolean) => void;
  /** Where the cell is now, for the thumbnail queue. */
  need: (cell: HTMLElement) => Need;
  /** Its thumbnail (or placeholder) is shown. */
  settled: () => void;
  /** The day heading it opens on the timeline (the first of its day), if any. */
  day: string | undefined;
}

/**
 * One grid cell: a skeleton while its page loads, else the day heading it opens (if any),
 * the asset's thumbnail, name, size and badges. `data-state` tells the tests (and the first-screen mark) where it is.
 */
export function drawCell(
  asset: Asset | undefined,
  index: number,
  column: number,
  hooks: CellHooks,
): HTMLElement {
  const cell = h('div', {
    class: 'cell',
    role: 'gridcell',
    'aria-colindex': column + 1,
    tabindex: hooks.focused ? 0 : -1,
    'data-index': index,
    'data-state': asset ? 'loading' : 'pending',
    'aria-selected': asset ? String(hooks.selected) : undefined,
    onclick: (e: MouseEvent) => {
      if (asset && (e.shiftKey || e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        hooks.toggle(e.shiftKey);
      } else hooks.open(asset);
    },
  });
  if (!asset) {
    cell.append(
      h('h3', { class: 'day', 'aria-hidden': 'true' }),
      h('div', { class: 'thumb skeleton', 'aria-hidden': 'true' }),
    );
    return cell;
  }
  const name = asset.human_filename ?? `${asset.hash.slice(0, 12)}…`;
  cell.dataset.hash = asset.hash;
  cell.setAttribute(
    'aria-label',
    `${name}${asset.is_corrupted ? ', corrupted' : ''}${asset.is_trashed ? ', in trash' : ''}`,
  );
  const box = h('div', { class: 'thumb' });
  const check = h('input', {
    type: 'checkbox',
    class: 'select',
    tabindex: -1,
    checked: hooks.selected,
    'aria-label': `Select ${name}`,
    onclick: (e: MouseEvent) => {
      e.stopPropagation();
      hooks.toggle(e.shiftKey);
    },
  });
  append(cell, [
    // Every cell keeps the line, so the rows stay one height (the grid is virtualised).
    h('h3', { class: 'day', 'aria-hidden': hooks.day ? undefined : 'true' }, hooks.day ?? ''),
    check,
    box,
    h('span', { class: 'name' }, name),
    h('span', { class: 'size' }, formatBytes(asset.size)),
    asset.is_corrupted ? h('span', { class: 'badge bad' }, 'Corrupted') : null,
    asset.is_trashed ? h('span', { class: 'badge' }, 'In trash') : null,
  ]);
  // A corrupted asset's thumbnail answers 500 (an older one may sit in the browser's cache).
  const thumb = asset.is_corrupted
    ? Promise.resolve({ failed: 'corrupted' })
    : loadThumb(asset.hash, () => hooks.need(cell));
  void thumb.then((thumb) => {
    if (!cell.isConnected) return;
    if ('url' in thumb) {
      box.append(h('img', { src: thumb.url, alt: '', decoding: 'async' }));
      cell.dataset.state = 'ready';
    } else {
      box.append(
        h('span', { class: 'no-preview' }, asset.is_corrupted ? 'Corrupted' : 'No preview'),
      );
      cell.dataset.state = 'failed';
    }
    hooks.settled();
  });
  return cell;
}
