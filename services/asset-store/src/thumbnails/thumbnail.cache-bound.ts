import fs from 'node:fs/promises';
import path from 'node:path';
import { LRUCache } from 'lru-cache';

/**
 * The thumbnail cache's bound: every cached file and its size, least recently used first,
 * and the ones past `maxBytes` in all removed from the disk. Sizes come from the files
 * themselves at the first use, oldest access first, so a restart keeps the bound.
 */
export class ThumbnailCacheBound {
  readonly #files: LRUCache<string, number>;
  #loaded: Promise<void> | undefined;

  constructor(
    private readonly dir: string,
    readonly maxBytes: number,
  ) {
    this.#files = new LRUCache<string, number>({
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (size) => Math.max(1, size),
      dispose: (_size, file, reason) => {
        if (reason === 'evict') void fs.rm(file, { force: true }).catch(() => undefined);
      },
    });
  }

  /** Whether a thumbnail of `size` bytes may be cached at all. */
  fits(size: number): boolean {
    return size <= this.maxBytes;
  }

  /** A cached file was served: it becomes the most recently used. */
  async used(file: string, size: number): Promise<void> {
    await this.#load();
    if (this.#files.get(file) === undefined) this.#files.set(file, size);
  }

  /** A file was cached: counted, and the least recently used past the bound removed. */
  async added(file: string, size: number): Promise<void> {
    await this.#load();
    this.#files.set(file, size);
  }

  /** The bytes counted now. */
  get totalBytes(): number {
    return this.#files.calculatedSize;
  }

  #load(): Promise<void> {
    this.#loaded ??= (async () => {
      let names: string[];
      try {
        names = await fs.readdir(this.dir);
      } catch {
        return;
      }
      const found = await Promise.all(
        names.map(async (name) => {
          const file = path.join(this.dir, name);
          const stat = await fs.stat(file).catch(() => undefined);
          return stat?.isFile() ? { file, size: stat.size, at: stat.atimeMs } : undefined;
        }),
      );
      const files = found.filter((f) => f !== undefined).sort((a, b) => a.at - b.at);
      for (const { file, size } of files) {
        // Set only where absent: a file used while loading is already the most recent.
        if (!this.#files.has(file)) this.#files.set(file, size);
      }
    })();
    return this.#loaded;
  }
}
