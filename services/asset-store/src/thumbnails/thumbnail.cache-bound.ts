import { LRUCache } from 'lru-cache';
import type { ThumbnailCache } from './thumbnail.cache.js';

/**
 * The thumbnail cache's bound: every cached thumbnail and its size, least recently used
 * first, and the ones past `maxBytes` in all removed from the cache (disk or bucket). Sizes
 * come from the cache's own listing at the first use, oldest use first, so a restart keeps
 * the bound.
 */
export class ThumbnailCacheBound {
  readonly #entries: LRUCache<string, number>;
  #loaded: Promise<void> | undefined;

  constructor(
    private readonly cache: ThumbnailCache,
    readonly maxBytes: number,
  ) {
    this.#entries = new LRUCache<string, number>({
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (size) => Math.max(1, size),
      dispose: (_size, name, reason) => {
        // The full name as the prefix: `.jpg` ends it, so no other size shares it.
        if (reason === 'evict') void cache.removeCached(name).catch(() => undefined);
      },
    });
  }

  /** Whether a thumbnail of `size` bytes may be cached at all. */
  fits(size: number): boolean {
    return size <= this.maxBytes;
  }

  /** A cached thumbnail was served: it becomes the most recently used. */
  async used(name: string, size: number): Promise<void> {
    await this.#load();
    if (this.#entries.get(name) === undefined) this.#entries.set(name, size);
  }

  /** A thumbnail was cached: counted, and the least recently used past the bound removed. */
  async added(name: string, size: number): Promise<void> {
    await this.#load();
    this.#entries.set(name, size);
  }

  /** The bytes counted now. */
  get totalBytes(): number {
    return this.#entries.calculatedSize;
  }

  #load(): Promise<void> {
    this.#loaded ??= (async () => {
      const found = [];
      try {
        for await (const entry of this.cache.listCached()) found.push(entry);
      } catch {
        // Unlistable now: counted from what this process caches from here on.
      }
      found.sort((a, b) => a.usedMs - b.usedMs);
      for (const { name, size } of found) {
        // Set only where absent: one used while loading is already the most recent.
        if (!this.#entries.has(name)) this.#entries.set(name, size);
      }
    })();
    return this.#loaded;
  }
}
