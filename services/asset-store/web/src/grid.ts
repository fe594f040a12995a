import { ApiError, type Asset } from './api.js';
import { announce, byId, h } from './dom.js';
import { drawCell } from './grid-cell.js';
import { AssetPages, type GridQuery, type PageLoaded } from './grid-pages.js';
import { forgetThumb, type Need } from './thumbs.js';
import { dayHeading } from './timeline.js';

export type { GridQuery };

const CELL_W = 176;
/** A cell's height with its margins: day heading line, thumbnail, name and size. */
const CELL_H = 236;
/** How many times a page that failed to load is asked again (1 s, 2 s, 3 s later). */
const RETRIES = 3;

/** Rows drawn above and below the visible ones, so a scroll does not show blanks. */
const OVERSCAN = 2;

/**
 * A virtualised thumbnail grid over any number of assets: only the visible rows exist in the
 * DOM, and pages (`AssetPages`) load as they come into view. Keyboard: arrows, Home/End and PageUp/PageDown move, Enter opens (ARIA grid pattern).
 */
export class AssetGrid {
  readonly element: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly rows = new Map<number, HTMLElement>();
  private readonly pages: AssetPages;
  /** A `refresh` is due (changes come in bursts: an upload of many files loads once). */
  private refreshDue = false;
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
  /** Told once, when the first screen of thumbnails is shown. */
  onFirstScreen: () => void = () => undefined;

  constructor(
    query: GridQuery,
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
    this.pages = new AssetPages(query, {
      loaded: (page) => this.pageLoaded(page),
      failed: (err, failures) => {
        // A page the store failed to give (busy, restarting) is asked again while in view,
        // a few times, rather than left blank until the next scroll.
        if (failures <= RETRIES) setTimeout(() => this.schedule(), failures * 1000);
        announce(err instanceof ApiError ? err.message : 'The asset store did not answer.');
        this.element.setAttribute('aria-busy', 'false');
      },
    });
  }

  private get total(): number | undefined {
    return this.pages.total;
  }

  /** Stops observing; call when the view goes away. */
  dispose(): void {
    this.resizeObserver.disconnect();
    cancelAnimationFrame(this.frame);
  }

  /** Updates one asset in place (after an edit) or drops it from view (trashed). */
  update(asset: Asset, stillShown: boolean): void {
    if (this.pages.replace(asset) && !stillShown) return this.reset();
    this.redraw();
  }

  /**
   * A change from the feed: the asset is updated wherever it is loaded, then the pages held
   * load again, as the list may have gained or lost it. One found corrupted stays in view
   * with its badge until the next load, so the user sees what happened to it.
   */
  applyChange(type: string, asset: Asset | undefined): void {
    if (asset) {
      forgetThumb(asset.hash);
      if (this.pages.replace(asset)) this.redraw();
    }
    if (type === 'asset.corrupted' || this.refreshDue) return;
    this.refreshDue = true;
    setTimeout(() => this.refresh(), 200);
  }

  /**
   * Whether the list changed while no stream was followed (before it started, or while it
   * was down and could not resume): the first page is asked again, and only when it or the
   * total differs do the pages held load again.
   */
  recheck(): void {
    this.pages.changed().then(
      (changed) => changed && this.refresh(),
      // The next change, or the next stream start, looks again.
      () => undefined,
    );
  }

  /** Loads the pages in view again; the rows on screen stay until their answers come. */
  refresh(): void {
    this.refreshDue = false;
    this.pages.refresh();
    this.render();
  }

  /** Forgets every loaded page and starts again from the top (filters changed, item gone). */
  reset(): void {
    this.firstScreen = true;
    this.element.querySelector('.empty')?.remove();
    this.pages.reset();
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
    return this.pages.item(index);
  }

  private pageLoaded({ first, totalChanged, unchanged }: PageLoaded): void {
    const count = `${(this.total ?? 0).toLocaleString('en')} assets`;
    // The count follows a change, unless the status line says something else (an action's
    // outcome).
    if (totalChanged && /^[\d,]+ assets$/.test(byId('status').textContent ?? '')) announce(count);
    if (first) {
      announce(count);
      this.element.setAttribute('aria-busy', 'false');
    }
    // A page loaded again as it was (a refresh): the rows on screen are right already.
    if (unchanged) return;
    this.element.querySelector('.empty')?.remove();
    if (this.total === 0) this.element.append(h('p', { class: 'empty' }, 'No assets match.'));
    this.redraw();
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
      this.pages.want(r * columns);
      this.pages.want(Math.min((r + 1) * columns, this.total) - 1);
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
          day: item && dayHeading(item, index > 0 ? this.itemAt(index - 1) : undefined),
        }),
      );
    }
    this.element.append(row);
    // bench:console's mark: the first asset drawn (its thumbnail may still be on its way).
    if (!document.body.dataset.firstCellMs && this.itemAt(r * this.columns)) {
      document.body.dataset.firstCellMs = String(Math.round(performance.now()));
    }
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
    this.onFirstScreen();
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
    for (const a of this.pages.loaded()) this.selected.set(a.hash, a);
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
    return this.pages.loaded();
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
