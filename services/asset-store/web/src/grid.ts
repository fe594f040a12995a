import { ApiError, fetchPage, type Asset } from './api.js';
import { announce, h } from './dom.js';
import { drawCell } from './grid-cell.js';
import type { Need } from './thumbs.js';

/** Items per request; one request fills several screens. */
const CHUNK = 200;
const CELL_W = 176;
const CELL_H = 208;
/** How many times a page that failed to load is asked again (1 s, 2 s, 3 s later). */
const RETRIES = 3;

/** Rows drawn above and below the visible ones, so a scroll does not show blanks. */
const OVERSCAN = 2;

/** What the grid shows: list or search with every filter but the paging ones. */
export interface GridQuery {
  endpoint: 'list' | 'search';
  params: URLSearchParams;
}

/**
 * A virtualised thumbnail grid over any number of assets: only the visible rows exist in the
 * DOM, and pages load as they come into view. Pages follow each other by `offset_time` (the
 * exact cursor); a page reached by dragging the scrollbar far ahead falls back to `offset`.
 * Keyboard: arrows, Home/End and PageUp/PageDown move, Enter opens (ARIA grid pattern).
 */
export class AssetGrid {
  readonly element: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly rows = new Map<number, HTMLElement>();
  private chunks = new Map<number, Asset[]>();
  private readonly loading = new Set<number>();
  /** Failed loads of each page, for the retries. */
  private readonly failures = new Map<number, number>();
  private total: number | undefined;
  private columns = 1;
  private focusIndex = 0;
  private frame = 0;
  private firstScreen = false;
  private readonly resizeObserver: ResizeObserver;
  /** The selected assets, by hash, in the order picked. */
  readonly selected = new Map<string, Asset>();
  /** Where the last selection click was: a Shift-click selects from here. */
  private anchor: number | undefined;
  /** Told whenever the selection changes. */
  onSelection: () => void = () => undefined;

  constructor(
    private readonly query: GridQuery,
    private readonly open: (asset: Asset) => void,
  ) {
    this.spacer = h('div', { class: 'grid-spacer' });
    this.element = h(
      'div',
      {
        class: 'grid',
        role: 'grid',
        'aria-label': 'Assets',
        'aria-multiselectable': 'true',
        'aria-busy': 'true',
        tabindex: 0,
        onscroll: () => this.schedule(),
        onkeydown: (e: KeyboardEvent) => this.onKey(e),
        onfocus: (e: FocusEvent) => {
          if (e.target === this.element) this.focusCell(this.focusIndex);
        },
      },
      this.spacer,
    );
    this.resizeObserver = new ResizeObserver(() => this.schedule());
    this.resizeObserver.observe(this.element);
    this.ensureChunk(0);
  }

  /** Stops observing; call when the view goes away. */
  dispose(): void {
    this.resizeObserver.disconnect();
    cancelAnimationFrame(this.frame);
  }

  /** Updates one asset in place (after an edit) or drops it from view (trashed). */
  update(asset: Asset, stillShown: boolean): void {
    for (const items of this.chunks.values()) {
      const at = items.findIndex((a) => a.hash === asset.hash);
      if (at < 0) continue;
      if (stillShown) items[at] = asset;
      else return this.reset();
    }
    this.redraw();
  }

  /** Forgets every loaded page and starts again from the top (filters changed, item gone). */
  reset(): void {
    // A new map: answers to requests made for the old one are recognised and dropped.
    this.chunks = new Map();
    this.loading.clear();
    this.total = undefined;
    this.firstScreen = true;
    this.element.querySelector('.empty')?.remove();
    this.ensureChunk(0);
  }

  private schedule(): void {
    cancelAnimationFrame(this.frame);
    this.frame = requestAnimationFrame(() => this.render());
  }

  private redraw(): void {
    for (const row of this.rows.values()) row.remove();
    this.rows.clear();
    this.render();
  }

  private itemAt(index: number): Asset | undefined {
    return this.chunks.get(Math.floor(index / CHUNK))?.[index % CHUNK];
  }

  private ensureChunk(k: number): void {
    if (this.chunks.has(k) || this.loading.has(k)) return;
    if (this.total !== undefined && k * CHUNK >= this.total) return;
    this.loading.add(k);
    const params = new URLSearchParams(this.query.params);
    params.set('limit', String(CHUNK));
    const previous = this.chunks.get(k - 1);
    const last = previous?.[previous.length - 1];
    if (previous?.length === CHUNK && last) params.set('offset_time', String(last.timestamp));
    else if (k > 0) params.set('offset', String(k * CHUNK));
    const generation = this.chunks;
    fetchPage(this.query.endpoint, params)
      .then((page) => {
        if (generation !== this.chunks || !this.loading.has(k)) return;
        this.loading.delete(k);
        const first = this.total === undefined;
        if (!first && page.pagination.total !== this.total) {
          // The list changed since the other pages came (assets added, trashed or flagged
          // elsewhere): they may sit off by as many places now, so they load again.
          this.chunks = new Map();
          this.loading.clear();
        }
        this.chunks.set(k, page.items);
        this.total = page.pagination.total;
        if (first) {
          announce(`${this.total.toLocaleString('en')} assets`);
          this.element.setAttribute('aria-busy', 'false');
        }
        this.element.querySelector('.empty')?.remove();
        if (this.total === 0) this.element.append(h('p', { class: 'empty' }, 'No assets match.'));
        this.redraw();
      })
      .catch((err: unknown) => {
        this.loading.delete(k);
        // A page the store failed to give (busy, restarting) is asked again while in view,
        // a few times, rather than left blank until the next scroll.
        const failures = (this.failures.get(k) ?? 0) + 1;
        this.failures.set(k, failures);
        if (failures <= RETRIES) setTimeout(() => this.schedule(), failures * 1000);
        announce(err instanceof ApiError ? err.message : 'The asset store did not answer.');
        this.element.setAttribute('aria-busy', 'false');
      });
  }

  private rowCount(): number {
    return Math.ceil((this.total ?? 0) / this.columns);
  }

  private render(): void {
    const width = this.element.clientWidth;
    const columns = Math.max(1, Math.floor(width / CELL_W));
    if (columns !== this.columns) {
      this.columns = columns;
      for (const row of this.rows.values()) row.remove();
      this.rows.clear();
    }
    if (this.total === undefined) return;
    const height = this.element.clientHeight;
    const { scrollTop, scrollHeight } = this.element;
    const atEnd = scrollTop > 0 && scrollTop + height >= scrollHeight - 1;
    this.spacer.style.height = `${this.rowCount() * CELL_H}px`;
    this.element.setAttribute('aria-rowcount', String(this.rowCount()));
    // A user at the end stays there when the list grows under them.
    if (atEnd) this.element.scrollTop = this.element.scrollHeight;
    const top = this.element.scrollTop;
    const first = Math.max(0, Math.floor(top / CELL_H) - OVERSCAN);
    const last = Math.min(this.rowCount() - 1, Math.ceil((top + height) / CELL_H) + OVERSCAN);
    for (const [index, row] of this.rows) {
      if (index < first || index > last) {
        row.remove();
        this.rows.delete(index);
      }
    }
    for (let r = first; r <= last; r++) {
      for (let i = r * columns; i < Math.min((r + 1) * columns, this.total); i += CHUNK) {
        this.ensureChunk(Math.floor(i / CHUNK));
      }
      this.ensureChunk(Math.floor(((r + 1) * columns - 1) / CHUNK));
      if (!this.rows.has(r)) this.rows.set(r, this.drawRow(r));
    }
    this.checkFirstScreen();
  }

  private drawRow(r: number): HTMLElement {
    const row = h('div', { class: 'grid-row', role: 'row', 'aria-rowindex': r + 1 });
    row.style.transform = `translateY(${r * CELL_H}px)`;
    for (let c = 0; c < this.columns; c++) {
      const index = r * this.columns + c;
      if (index >= (this.total ?? 0)) break;
      const item = this.itemAt(index);
      row.append(
        drawCell(item, index, c, {
          focused: index === this.focusIndex,
          open: (asset) => {
            this.focusIndex = index;
            if (asset) this.open(asset);
          },
          need: (cell) => this.need(cell, index),
          selected: item !== undefined && this.selected.has(item.hash),
          toggle: (range) => this.toggle(index, range),
          settled: () => this.checkFirstScreen(),
        }),
      );
    }
    this.element.append(row);
    return row;
  }

  /** Where a cell is now, for the thumbnail queue: on screen, drawn off it, or gone. */
  private need(cell: HTMLElement, index: number): Need {
    if (!cell.isConnected) return 'gone';
    const top = Math.floor(index / this.columns) * CELL_H;
    const { scrollTop, clientHeight } = this.element;
    return top + CELL_H > scrollTop && top < scrollTop + clientHeight ? 'visible' : 'near';
  }

  /**
   * Marks the first moment every visible cell shows its thumbnail (or its placeholder). Run
   * after each thumbnail: which cells are visible comes from the scroll position, as in
   * `render`, not from measuring every cell, which would force a layout each time.
   */
  private checkFirstScreen(): void {
    if (this.firstScreen || this.total === undefined) return;
    const { scrollTop, clientHeight } = this.element;
    const firstRow = Math.floor(scrollTop / CELL_H);
    const lastRow = Math.min(
      this.rowCount() - 1,
      Math.ceil((scrollTop + clientHeight) / CELL_H) - 1,
    );
    for (let r = firstRow; r <= lastRow; r++) {
      const row = this.rows.get(r);
      if (!row) return;
      for (const cell of row.children as HTMLCollectionOf<HTMLElement>) {
        if (cell.dataset.state === 'loading' || cell.dataset.state === 'pending') return;
      }
    }
    this.firstScreen = true;
    document.body.dataset.firstScreenMs = String(Math.round(performance.now()));
  }

  /**
   * Selects or unselects the asset at `index`; with `range`, every loaded asset from the
   * last one clicked to this one takes the state this one gets.
   */
  toggle(index: number, range: boolean): void {
    const asset = this.itemAt(index);
    if (!asset) return;
    const select = !this.selected.has(asset.hash);
    const from = range && this.anchor !== undefined ? Math.min(this.anchor, index) : index;
    const to = range && this.anchor !== undefined ? Math.max(this.anchor, index) : index;
    for (let i = from; i <= to; i++) {
      const a = this.itemAt(i);
      if (!a) continue;
      if (select) this.selected.set(a.hash, a);
      else this.selected.delete(a.hash);
    }
    this.anchor = index;
    this.selectionChanged();
  }

  /** Selects every asset loaded (the pages fetched so far); how many that is. */
  selectAllLoaded(): number {
    for (const items of this.chunks.values()) for (const a of items) this.selected.set(a.hash, a);
    this.selectionChanged();
    return this.selected.size;
  }

  /** Empties the selection. */
  clearSelection(): void {
    this.selected.clear();
    this.anchor = undefined;
    this.selectionChanged();
  }

  /** The assets loaded, in grid order (for the viewer's previous and next). */
  loaded(): Asset[] {
    const out: Asset[] = [];
    const keys = [...this.chunks.keys()].sort((a, b) => a - b);
    for (const k of keys) out.push(...this.chunks.get(k)!);
    return out;
  }

  private selectionChanged(): void {
    this.redraw();
    this.onSelection();
  }

  private onKey(e: KeyboardEvent): void {
    const total = this.total ?? 0;
    if (total === 0) return;
    const perPage = Math.max(1, Math.floor(this.element.clientHeight / CELL_H)) * this.columns;
    const moves: Record<string, number> = {
      ArrowRight: 1,
      ArrowLeft: -1,
      ArrowDown: this.columns,
      ArrowUp: -this.columns,
      PageDown: perPage,
      PageUp: -perPage,
    };
    let next = this.focusIndex;
    if (e.key in moves) next += moves[e.key]!;
    else if (e.key === 'Home') next = e.ctrlKey ? 0 : next - (next % this.columns);
    else if (e.key === 'End')
      next = e.ctrlKey ? total - 1 : next - (next % this.columns) + this.columns - 1;
    else if (e.key === 'Enter') {
      const asset = this.itemAt(this.focusIndex);
      if (asset) this.open(asset);
      e.preventDefault();
      return;
    } else if (e.key === ' ') {
      // Space selects, as in a file manager (Shift: the range from the last one picked).
      this.toggle(this.focusIndex, e.shiftKey);
      this.focusCell(this.focusIndex);
      e.preventDefault();
      return;
    } else if (e.key === 'a' && (e.ctrlKey || e.metaKey)) {
      this.selectAllLoaded();
      this.focusCell(this.focusIndex);
      e.preventDefault();
      return;
    } else if (e.key === 'Escape' && this.selected.size > 0) {
      this.clearSelection();
      this.focusCell(this.focusIndex);
      e.preventDefault();
      return;
    } else return;
    e.preventDefault();
    this.focusCell(Math.max(0, Math.min(total - 1, next)));
  }

  private focusCell(index: number): void {
    this.focusIndex = index;
    const row = Math.floor(index / this.columns);
    const top = row * CELL_H;
    if (top < this.element.scrollTop) this.element.scrollTop = top;
    else if (top + CELL_H > this.element.scrollTop + this.element.clientHeight) {
      this.element.scrollTop = top + CELL_H - this.element.clientHeight;
    }
    this.render();
    for (const cell of this.element.querySelectorAll<HTMLElement>('.cell')) {
      const mine = Number(cell.dataset.index) === index;
      cell.tabIndex = mine ? 0 : -1;
      if (mine) cell.focus({ preventScroll: true });
    }
  }
}
