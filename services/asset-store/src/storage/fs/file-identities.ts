import { LRUCache } from 'lru-cache';

/**
 * Files remembered at once; one past it forgets the least recently used, which is then
 * verified again at its next download.
 */
const REMEMBERED_FILES = 500_000;

/**
 * Each stored blob's identity (its `BlobStat.version`: size, inode, mtime and ctime of a
 * file; size and ETag of an object) as it was when its content was last verified against
 * its hash, by blob name. A reader compares a fresh `stat` with it: a file changed since (even within the
 * moment before the watcher flags it) no longer matches, and is verified again before a
 * byte of it is served.
 */
export class FileIdentities {
  readonly #verified = new LRUCache<string, string>({ max: REMEMBERED_FILES });

  /** The blob's content matched its hash while its `stat` gave this version. */
  record(name: string, version: string): void {
    this.#verified.set(name, version);
  }

  /** True when the blob is verified and unchanged since. */
  matches(name: string, version: string): boolean {
    return this.#verified.get(name) === version;
  }

  /** The file is no longer known good. */
  forget(name: string): void {
    this.#verified.delete(name);
  }
}
