import path from 'node:path';
import type { InstanceLock } from '@svc/database';
import type { Kysely } from 'kysely';
import mime from 'mime-types';
import type { Logger } from 'pino';
import { maxAssetTimestamp } from '../assets/asset.repository.js';
import { rowFromAttributes } from '../assets/asset.model.js';
import { digestStream } from '../storage/content-hash.js';
import { Limiter } from '../concurrency/limiter.js';
import type { Database } from '../db/database.js';
import type { AssetAttributes } from '../storage/attributes.js';
import type { BlobEntry, BlobStore } from '../storage/blob-store.js';
import { parsePhysicalFilename } from '../storage/layout.js';
import { listAssetsAfter, setAssetCorrupted } from '../verifier/verifier.repository.js';
import {
  deleteAllAssets,
  isIndexEmpty,
  settleRebuild,
  unindexedHashes,
  upsertAsset,
} from './rebuild.repository.js';

/** `soft` upserts over the index; `hard` empties it first. */
export type RebuildMode = 'soft' | 'hard';

/** The counts `POST /admin/rebuild` answers with; `mode` is what finally ran. */
export interface RebuildReport {
  mode: RebuildMode;
  scanned: number;
  indexed: number;
  errors: number;
}

/** What a rebuild's caller may pass: a signal that ends it early, an ear for its counts. */
export interface RebuildOptions {
  /**
   * Ends the pass at the next file (files being read finish first); the counts so far are
   * answered, nothing escalates, vanished files are not looked for.
   */
  signal?: AbortSignal;
  /** The running counts after each file (a soft pass escalated to hard starts at zero). */
  onProgress?: (report: Readonly<RebuildReport>) => void;
}

/** What rebuilding needs. */
export interface RebuildDeps {
  db: Kysely<Database>;
  /** Where the assets are listed and read. */
  blobs: BlobStore;
  logger: Pick<Logger, 'info' | 'warn'>;
  /** Per-file errors a soft rebuild tolerates before it escalates to a hard one. */
  errorThreshold: number;
  /** Files read at once. */
  concurrency?: number;
  /**
   * Held by every rebuild and start-up recovery: across the instances on one database
   * server (`instanceLock`), else within this process.
   */
  lock: InstanceLock;
}

const CHUNK = 64;

/**
 * How far before the newest row an ingest cut off by a crash can have begun: its timestamp
 * is issued when its upload starts, so this bounds the upload's length that recovery at
 * start covers (a soft rebuild covers any).
 */
const UNCOMMITTED_WINDOW_MS = 24 * 60 * 60 * 1000;

/** The tags a physical filename still shows (sanitised, so only a best effort). */
function tagsInFilename(name: string, head: string, ext: string): string[] {
  const middle = name.slice(head.length, name.length - ext.length - 1);
  return middle.split('_').filter((t) => t !== '');
}

/**
 * Rebuilds the index from the files alone: each file's attributes when it has them, else
 * what its name says plus a recomputed hash. Rows whose file is gone are flagged
 * corrupted, never deleted. One rebuild at a time, across instances too: a second one
 * waits for the first to end (as `POST /admin/rebuild` always did within one process).
 */
export class Rebuilder {
  readonly #io: Limiter;
  /** One waiter per process at most on the shared lock (each holds a connection). */
  readonly #oneAtATime = new Limiter(1);
  readonly #lock: InstanceLock;
  readonly #blobs: BlobStore;

  constructor(private readonly deps: RebuildDeps) {
    this.#io = new Limiter(deps.concurrency ?? 4);
    this.#lock = deps.lock;
    this.#blobs = deps.blobs;
  }

  /** Runs a rebuild; a soft one with too many per-file errors becomes a hard one. */
  rebuild(mode: RebuildMode, options: RebuildOptions = {}): Promise<RebuildReport> {
    return this.#exclusive(() => this.#rebuild(mode, options));
  }

  /**
   * At start: an empty index over a storage root with files rebuilds itself. Checked under
   * the lock, so of instances starting together only the first rebuilds.
   */
  rebuildIfEmpty(): Promise<RebuildReport | undefined> {
    return this.#exclusive(async () => {
      if (!(await isIndexEmpty(this.deps.db)) || !(await this.#hasBlobs())) {
        return undefined;
      }
      const report = await this.#rebuild('soft', {});
      this.deps.logger.info(report, 'index was empty; rebuilt it from the storage root');
      return report;
    });
  }

  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.#oneAtATime.run(() => this.#lock.run(work));
  }

  async #rebuild(mode: RebuildMode, options: RebuildOptions): Promise<RebuildReport> {
    // Cancelled while it waited for another rebuild: nothing is done (nor emptied).
    if (options.signal?.aborted) return { mode, scanned: 0, indexed: 0, errors: 0 };
    this.deps.logger.info({ mode }, 'rebuild started');
    const report = await this.#rebuildHeld(mode, options);
    this.deps.logger.info(report, 'rebuild finished');
    return report;
  }

  async #rebuildHeld(mode: RebuildMode, options: RebuildOptions): Promise<RebuildReport> {
    if (mode === 'hard') return this.#hard(options);
    const soft = await this.#pass('soft', options);
    if (soft.errors <= this.deps.errorThreshold || options.signal?.aborted) return soft;
    this.deps.logger.warn(
      { errors: soft.errors, threshold: this.deps.errorThreshold },
      'soft rebuild had too many errors; escalating to a hard rebuild',
    );
    return this.#hard(options);
  }

  /**
   * At start, after a crash: the files of ingests cut off between their rename into place
   * and their row's commit. Each is complete and fsynced with its attributes (the rename
   * follows the fsync), so it is indexed as a rebuild would, before the first ingest seeds
   * the timestamps from the index. Ingest writes to the root's top level only and such a
   * file began at most one upload before the newest row, so only top-level names newer
   * than the newest row less a day are looked up; answers how many were indexed. With
   * several instances, a file found may be another one's ingest in flight: indexing it is
   * harmless, as that ingest then stands on this row (`IngestService`).
   */
  indexUncommitted(): Promise<number> {
    return this.#exclusive(() => this.#indexUncommitted());
  }

  async #indexUncommitted(): Promise<number> {
    const newest = await maxAssetTimestamp(this.deps.db);
    if (newest === 0) return 0;
    const recent = new Map<string, BlobEntry>();
    // Names are judged before anything else is read about a blob: only recent ones count.
    const isRecent = (name: string) => {
      const parsed = parsePhysicalFilename(name);
      return parsed !== undefined && parsed.timestamp > newest - UNCOMMITTED_WINDOW_MS;
    };
    for await (const entry of this.#blobs.list({ topLevel: true, accept: isRecent })) {
      recent.set(parsePhysicalFilename(entry.name)!.hash, entry);
    }
    const missing = await unindexedHashes(this.deps.db, [...recent.keys()]);
    const results = await Promise.all(
      missing.map((hash) => this.#io.run(() => this.#index(recent.get(hash)!))),
    );
    const indexed = results.filter(Boolean).length;
    if (missing.length > 0) {
      this.deps.logger.info(
        { found: missing.length, indexed },
        'indexed the files of ingests cut off before their row was committed',
      );
    }
    return indexed;
  }

  async #hard(options: RebuildOptions): Promise<RebuildReport> {
    await deleteAllAssets(this.deps.db);
    return this.#pass('hard', options);
  }

  async #pass(mode: RebuildMode, { signal, onProgress }: RebuildOptions): Promise<RebuildReport> {
    const report: RebuildReport = { mode, scanned: 0, indexed: 0, errors: 0 };
    let chunk: BlobEntry[] = [];
    const indexOne = async (file: BlobEntry) => {
      // Once cancelled, files still waiting for a turn are left (those being read finish).
      const ok = await this.#io.run(async () => (signal?.aborted ? undefined : this.#index(file)));
      if (ok === undefined) return;
      if (ok) report.indexed++;
      else report.errors++;
      onProgress?.(report);
    };
    const flush = async () => {
      await Promise.all(chunk.map(indexOne));
      chunk = [];
    };
    onProgress?.(report);
    for await (const file of this.#blobs.list()) {
      if (signal?.aborted) break;
      report.scanned++;
      chunk.push(file);
      if (chunk.length >= CHUNK) await flush();
    }
    await flush();
    if (mode === 'soft' && !signal?.aborted) await this.#flagVanished();
    // Only once every file was seen: an asset not yet indexed again is not gone.
    if (!signal?.aborted) {
      const purged = await settleRebuild(this.deps.db);
      if (purged > 0) {
        this.deps.logger.info({ purged }, 'rebuild: assets whose files are gone left the index');
      }
    }
    return report;
  }

  async #hasBlobs(): Promise<boolean> {
    for await (const _blob of this.#blobs.list()) return true;
    return false;
  }

  /** Indexes one file; false (logged) when it cannot be. */
  async #index(file: BlobEntry): Promise<boolean> {
    try {
      // Attributes from before `content_sha256` was kept leave it unknown here: reading every
      // byte would make a rebuild as slow as a scrub, which fills it in (`Verifier`).
      const attrs = (await this.#blobs.readAttributes(file.name)) ?? (await this.#fromName(file));
      if (!attrs) {
        this.deps.logger.warn({ file: file.name }, 'not an asset file; skipped');
        return false;
      }
      await upsertAsset(this.deps.db, rowFromAttributes(attrs, file.name, file.size));
      return true;
    } catch (err) {
      this.deps.logger.warn({ err, file: file.name }, 'could not index file');
      return false;
    }
  }

  /**
   * A file without attributes: identity from its name, integrity from a recomputed hash
   * (and, in the same read, the content digest, kept only when the hash matches: a damaged
   * file's digest would describe the damage), type from its extension. The attributes are written back, so the next rebuild is exact.
   */
  async #fromName(file: BlobEntry): Promise<AssetAttributes | undefined> {
    const name = path.posix.basename(file.name);
    const parsed = parsePhysicalFilename(name);
    if (!parsed) return undefined;
    const actual = await digestStream(await this.#blobs.read(file.name), parsed.timestamp);
    const intact = actual.hash === parsed.hash;
    const attrs: AssetAttributes = {
      hash: parsed.hash,
      timestamp: parsed.timestamp,
      mime_type: mime.lookup(parsed.ext) || 'application/octet-stream',
      tags: tagsInFilename(name, `${parsed.timestamp}_${parsed.hash}`, parsed.ext),
      is_trashed: false,
      is_corrupted: !intact,
      ...(intact ? { content_sha256: actual.sha256 } : {}),
    };
    await this.#writeBack(file, attrs);
    return attrs;
  }

  async #writeBack(file: BlobEntry, attrs: AssetAttributes): Promise<void> {
    await this.#blobs
      .writeAttributes(file.name, attrs)
      .catch((err: unknown) =>
        this.deps.logger.warn({ err, file: file.name }, 'could not write attributes back'),
      );
  }

  /** Rows whose file is gone: flagged corrupted (the metadata stays, the bytes do not). */
  async #flagVanished(): Promise<void> {
    let after = -1;
    for (;;) {
      const rows = await listAssetsAfter(this.deps.db, after, 500);
      if (rows.length === 0) return;
      after = rows[rows.length - 1]!.timestamp;
      await Promise.all(
        rows
          .filter((row) => !row.is_corrupted)
          .map(async (row) => {
            const exists = await this.#blobs.stat(row.path).catch(() => undefined);
            if (!exists) await setAssetCorrupted(this.deps.db, row.hash, true);
          }),
      );
    }
  }
}
