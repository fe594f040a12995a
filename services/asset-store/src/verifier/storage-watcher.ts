import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { isInternal } from '../storage/layout.js';
import type { OwnRenames } from '../storage/fs/own-renames.js';

/** How long the tree must be quiet before a batch goes out, and the longest a change waits. */
export interface DebounceTimes {
  quietMs: number;
  maxWaitMs: number;
}

/**
 * One inotify-style watch per folder rather than `fs.watch(..., {recursive})`: Node 20's
 * recursive mode on Linux follows files by inode and goes deaf to a file replaced by a
 * rename, which is exactly the change the verifier must catch. Folders appearing later
 * are added; dot-folders (the service's own) are never watched.
 */
class FolderTreeWatch {
  readonly #watchers = new Map<string, fs.FSWatcher>();
  #closed = false;

  constructor(
    private readonly root: string,
    private readonly onPath: (relative: string) => void,
    private readonly logger: Pick<Logger, 'warn'>,
    private readonly ownRenames?: OwnRenames,
  ) {}

  async watchTree(dir: string): Promise<void> {
    if (this.#closed || this.#watchers.has(dir)) return;
    const relative = path.relative(this.root, dir);
    if (relative !== '' && isInternal(relative)) return;
    let watcher: fs.FSWatcher;
    try {
      watcher = fs.watch(dir, { persistent: false }, (event, name) =>
        this.#changed(dir, event, name),
      );
    } catch (err) {
      this.logger.warn({ err, dir }, 'cannot watch folder; periodic scrubs still cover it');
      return;
    }
    // A watched folder that disappears errors out or stops; either way it is forgotten.
    watcher.on('error', () => this.#forget(dir));
    this.#watchers.set(dir, watcher);
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    await Promise.all(
      entries.filter((e) => e.isDirectory()).map((e) => this.watchTree(path.join(dir, e.name))),
    );
  }

  #changed(dir: string, event: fs.WatchEventType, name: string | Buffer | null): void {
    const absolute = name ? path.join(dir, name.toString()) : dir;
    const relative = path.relative(this.root, absolute);
    if (relative === '' || isInternal(relative)) return;
    // A file the service just renamed into place: neither a change nor a folder.
    if (event === 'rename' && this.ownRenames?.consume(relative)) return;
    this.onPath(relative);
    fs.stat(absolute, (err, stat) => {
      if (err) this.#forgetUnder(absolute);
      else if (stat.isDirectory()) void this.watchTree(absolute);
    });
  }

  #forget(dir: string): void {
    this.#watchers.get(dir)?.close();
    this.#watchers.delete(dir);
  }

  #forgetUnder(dir: string): void {
    for (const watched of this.#watchers.keys()) {
      if (watched === dir || watched.startsWith(`${dir}${path.sep}`)) this.#forget(watched);
    }
  }

  close(): void {
    this.#closed = true;
    for (const dir of [...this.#watchers.keys()]) this.#forget(dir);
  }
}

/**
 * Watches `root` and everything under it, handing over the changed relative paths in
 * debounced batches, so a burst of writes to one file becomes one check, well within 5 s.
 * `close` stops it and drops pending changes.
 */
export class StorageWatch {
  /** Resolves once every existing folder is watched. */
  readonly ready: Promise<void>;
  readonly #tree: FolderTreeWatch;
  #pending = new Set<string>();
  /** When the oldest change of the pending batch was seen (`performance.now()`). */
  #since = 0;
  #quiet: NodeJS.Timeout | undefined;
  #deadline: NodeJS.Timeout | undefined;

  constructor(
    root: string,
    /** `since`: when the batch's first change was seen, for the check lag (`/metrics`). */
    private readonly onChanges: (relativePaths: Set<string>, since: number) => void,
    logger: Pick<Logger, 'warn'>,
    private readonly times: DebounceTimes = { quietMs: 300, maxWaitMs: 1500 },
    ownRenames?: OwnRenames,
  ) {
    this.#tree = new FolderTreeWatch(
      path.resolve(root),
      (relative) => {
        if (this.#pending.size === 0) this.#since = performance.now();
        this.#pending.add(relative);
        clearTimeout(this.#quiet);
        this.#quiet = setTimeout(() => this.#flush(), this.times.quietMs);
        this.#deadline ??= setTimeout(() => this.#flush(), this.times.maxWaitMs);
      },
      logger,
      ownRenames,
    );
    this.ready = this.#tree.watchTree(path.resolve(root));
  }

  close(): void {
    clearTimeout(this.#quiet);
    clearTimeout(this.#deadline);
    this.#pending.clear();
    this.#tree.close();
  }

  #flush(): void {
    clearTimeout(this.#quiet);
    clearTimeout(this.#deadline);
    this.#quiet = this.#deadline = undefined;
    const batch = this.#pending;
    this.#pending = new Set();
    if (batch.size > 0) this.onChanges(batch, this.#since);
  }
}
