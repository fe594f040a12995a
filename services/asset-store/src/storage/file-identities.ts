import type { Stats } from 'node:fs';
import { LRUCache } from 'lru-cache';

/**
 * Files remembered at once; one past it forgets the least recently used, which is then
 * verified again at its next download.
 */
const REMEMBERED_FILES = 500_000;

/** What changes when a file's content is changed or replaced: size, inode, mtime, ctime. */
function identityOf(stat: Stats): string {
  return `${stat.size}:${stat.ino}:${stat.mtimeMs}:${stat.ctimeMs}`;
}

/**
 * Each stored file's identity as it was when its content was last verified against its
 * hash. A reader compares a fresh `stat` with it: a file changed since (even within the
 * moment before the watcher flags it) no longer matches, and is verified again before a
 * byte of it is served.
 */
export class FileIdentities {
  readonly #verified = new LRUCache<string, string>({ max: REMEMBERED_FILES });

  /** The file's content matched its hash while its `stat` read so. */
  record(file: string, stat: Stats): void {
    this.#verified.set(file, identityOf(stat));
  }

  /** True when the file is verified and unchanged since. */
  matches(file: string, stat: Stats): boolean {
    return this.#verified.get(file) === identityOf(stat);
  }

  /** The file is no longer known good. */
  forget(file: string): void {
    this.#verified.delete(file);
  }
}
