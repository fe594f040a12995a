import { fetchPage, type Asset } from './api.js';
import { timelineTime } from './timeline.js';

/** Items per request; one request fills several screens. */
const CHUNK = 200;

/** What the grid shows: list or search with every filter but the paging ones. */
export interface GridQuery {
  endpoint: 'list' | 'search';
  params: URLSearchParams;
}

/** What a page's answer tells the grid. */
export interface PageLoaded {
  /** The first answer since the pages were made or reset. */
  first: boolean;
  /** The total differs from the one known: the list changed, the other pages load again. */
  totalChanged: boolean;
  /** The page came back as it was held before a refresh: nothing to draw again. */
  unchanged: boolean;
}

/** How the pages report to the grid drawing them. */
export interface PagesHooks {
  loaded: (page: PageLoaded) => void;
  /** A page failed to load, `failures` times so far. */
  failed: (err: unknown, failures: number) => void;
}

/**
 * The grid's list as pages of CHUNK assets, each asked for when first wanted. A page follows
 * its predecessor by `offset_time` (the exact cursor, see `cursorAfter`); one reached without its predecessor
 * (the scrollbar dragged far ahead) is asked by `offset`. After a `refresh` the pages held
 * stay readable until their fresh copies come, so the rows on screen never blank. Knows
 * nothing of the page's DOM: the grid draws.
 */
export class AssetPages {
  private chunks = new Map<number, Asset[]>();
  /** Pages held before the last `refresh`, read until their fresh copies come. */
  private stale = new Map<number, Asset[]>();
  private readonly loading = new Set<number>();
  /** Failed loads of each page, for the grid's retries. */
  private readonly failures = new Map<number, number>();
  private known: number | undefined;

  constructor(
    private readonly query: GridQuery,
    private readonly hooks: PagesHooks,
  ) {
    this.want(0);
  }

  /** How many assets the list holds, once the first page has told. */
  get total(): number | undefined {
    return this.known;
  }

  /** The asset at a position, if its page (or its copy before a refresh) is held. */
  item(index: number): Asset | undefined {
    const k = Math.floor(index / CHUNK);
    return (this.chunks.get(k) ?? this.stale.get(k))?.[index % CHUNK];
  }

  /** The assets loaded, in list order. */
  loaded(): Asset[] {
    const keys = [...this.chunks.keys()].sort((a, b) => a - b);
    return keys.flatMap((k) => this.chunks.get(k)!);
  }

  /** Replaces an asset wherever it is held; whether it was. */
  replace(asset: Asset): boolean {
    let found = false;
    for (const pages of [this.chunks, this.stale]) {
      for (const items of pages.values()) {
        const at = items.findIndex((a) => a.hash === asset.hash);
        if (at >= 0) {
          items[at] = asset;
          found = true;
        }
      }
    }
    return found;
  }

  /** Asks for the page holding `index`, unless it is held, on its way or past the end. */
  want(index: number): void {
    const k = Math.floor(index / CHUNK);
    if (this.chunks.has(k) || this.loading.has(k)) return;
    if (this.known !== undefined && k * CHUNK >= this.known) return;
    this.loading.add(k);
    const params = new URLSearchParams(this.query.params);
    params.set('limit', String(CHUNK));
    const previous = this.chunks.get(k - 1);
    const after = previous?.length === CHUNK ? this.cursorAfter(previous) : undefined;
    if (after) for (const [name, value] of Object.entries(after)) params.set(name, value);
    else if (k > 0) params.set('offset', String(k * CHUNK));
    // Answers to requests made for an older map are recognised and dropped.
    const generation = this.chunks;
    fetchPage(this.query.endpoint, params)
      .then((page) => {
        if (generation !== this.chunks || !this.loading.has(k)) return;
        this.loading.delete(k);
        const first = this.known === undefined;
        const totalChanged = !first && page.pagination.total !== this.known;
        if (totalChanged) {
          // The list changed since the other pages came (assets added, trashed or flagged
          // elsewhere): they may sit off by as many places now, so they load again.
          this.chunks = new Map();
          this.loading.clear();
        }
        const unchanged = !totalChanged && !first && sameAssets(this.stale.get(k), page.items);
        this.chunks.set(k, page.items);
        this.stale.delete(k);
        this.known = page.pagination.total;
        this.hooks.loaded({ first, totalChanged, unchanged });
      })
      .catch((err: unknown) => {
        this.loading.delete(k);
        const failures = (this.failures.get(k) ?? 0) + 1;
        this.failures.set(k, failures);
        this.hooks.failed(err, failures);
      });
  }

  /**
   * Where the page after `previous` starts, by `offset_time` (the exact cursor), or undefined
   * when only its position can tell. By timestamp (unique) it is the last one. By date taken
   * (`sort=taken`) several assets can share a key (photos of the same second) and the cursor
   * is strict, so it goes one past the last key and `offset` skips the assets of that key
   * already held: known only when their run starts within `previous`.
   */
  private cursorAfter(previous: Asset[]): Record<string, string> | undefined {
    const last = previous[previous.length - 1]!;
    if (this.query.params.get('sort') !== 'taken') {
      return { offset_time: String(last.timestamp) };
    }
    const key = timelineTime(last);
    if (timelineTime(previous[0]!) === key) return undefined;
    const desc = this.query.params.get('order') !== 'asc';
    const cursor = desc ? key + 1 : key - 1;
    // The API's cursor is ≥ 0; a photo dated before 1970 has a key below.
    if (cursor < 0) return undefined;
    const held = previous.filter((a) => timelineTime(a) === key).length;
    return { offset_time: String(cursor), offset: String(held) };
  }

  /** Asks again for the pages wanted from now on; those held stay readable meanwhile. */
  refresh(): void {
    this.stale = new Map([...this.stale, ...this.chunks]);
    this.chunks = new Map();
    this.loading.clear();
    this.failures.clear();
    // A reset's first page still on its way is dropped with the old map, and with no total
    // the grid asks for nothing: ask for it again (an upload's reset, then its feed event).
    if (this.known === undefined) this.want(0);
  }

  /** Forgets every page and asks for the first again (filters changed, an item gone). */
  reset(): void {
    this.chunks = new Map();
    this.stale = new Map();
    this.loading.clear();
    this.known = undefined;
    this.want(0);
  }

  /**
   * Whether the list changed unseen: the first page asked again and compared, total and
   * records. True too when no first page is held.
   */
  async changed(): Promise<boolean> {
    const generation = this.chunks;
    const first = generation.get(0);
    if (!first) return true;
    const params = new URLSearchParams(this.query.params);
    params.set('limit', String(CHUNK));
    const page = await fetchPage(this.query.endpoint, params);
    if (generation !== this.chunks) return false;
    return page.pagination.total !== this.known || !sameAssets(first, page.items);
  }
}

/** Whether two pages hold the same assets in the same states (their records equal). */
function sameAssets(a: Asset[] | undefined, b: Asset[]): boolean {
  return a !== undefined && a.length === b.length && JSON.stringify(a) === JSON.stringify(b);
}
