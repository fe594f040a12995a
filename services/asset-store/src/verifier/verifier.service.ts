import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { attributesFromRow } from '../assets/asset.model.js';
import { findAssetsByHashes } from '../assets/asset.repository.js';
import type { AssetRow } from '../assets/asset.table.js';
import { Limiter } from '../concurrency/limiter.js';
import type { Database } from '../db/database.js';
import type { AttributeStore } from '../storage/attributes.js';
import type { BlobStore } from '../storage/blob-store.js';
import { FsBlobStore } from '../storage/fs/fs-blob-store.js';
import { isInternal, parsePhysicalFilename, type StorageLayout } from '../storage/layout.js';
import type { FileIdentities } from '../storage/fs/file-identities.js';
import type { PeerPlacements } from '../storage/fs/placement-notices.js';
import type { VerifierMetrics } from '../metrics/asset-metrics.js';
import { checkBlob, type FileState } from './file-check.js';
import {
  fillContentSha256,
  findAssetsAtOrUnder,
  listAssetsAfter,
  setAssetCorrupted,
} from './verifier.repository.js';

/** Hashes per lookup of changed files (a query's parameters are bounded). */
const LOOKUP_BATCH = 1000;

/** The counts `POST /admin/verify` answers with. */
export interface ScrubReport {
  checked: number;
  corrupted: number;
  missing: number;
  duration_ms: number;
}

/** What the verifier needs. */
export interface VerifierDeps {
  db: Kysely<Database>;
  layout: StorageLayout;
  attributes: AttributeStore;
  /** Where the assets are read and their flags written; the storage root when absent. */
  blobs?: BlobStore;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Identities of files found intact, for readers to check theirs against. */
  identities?: FileIdentities;
  /** Files a scrub hashes at once; bounded so a scrub does not starve requests. */
  concurrency?: number;
  /** Counters for `/metrics`; none in tests that do not look. */
  metrics?: VerifierMetrics;
  /** Files other instances placed in the same folder, with their identities then. */
  peerPlacements?: PeerPlacements;
}

/** What a scrub's caller may pass: a signal that ends it early, and ears for its progress. */
export interface ScrubOptions {
  signal?: AbortSignal;
  /** Bytes of the file of `hash` just read (a file looked at twice is read twice). */
  onBytes?: (hash: string, bytes: number) => void;
  /** One file checked, with what it was found to be. */
  onChecked?: (row: AssetRow, state: FileState) => void;
}

/** How one check is run: the signal that stops it and an ear for the bytes it reads. */
interface CheckOptions {
  signal?: AbortSignal;
  onBytes?: (bytes: number) => void;
}

const BATCH = 256;

/**
 * Compares stored files with their hashes and keeps `is_corrupted` (row and attributes)
 * in step: set on a mismatch or a missing file, cleared when the content matches again.
 */
export class Verifier {
  /** Full scrubs; changed files get a lane of their own so a long scrub never delays them. */
  readonly #scrubLane: Limiter;
  readonly #changeLane = new Limiter(1);
  /** Downloads waiting on a check: a lane of their own, so a scrub never delays them. */
  readonly #readLane = new Limiter(4);
  readonly #stopping = new AbortController();
  readonly #blobs: BlobStore;

  constructor(private readonly deps: VerifierDeps) {
    this.#scrubLane = new Limiter(deps.concurrency ?? 2);
    this.#blobs = deps.blobs ?? new FsBlobStore(deps);
  }

  /**
   * At shutdown: files being hashed stop at their next chunk, and checks not yet begun are
   * skipped, so a running scrub or watch check ends within moments instead of finishing
   * its batch (up to 256 files, of up to a gibibyte each).
   */
  stop(): void {
    this.#stopping.abort(new Error('the verifier is stopping'));
  }

  /** Checks one indexed asset and fixes its flag; returns what the file looks like. */
  async verifyAsset(
    row: AssetRow,
    lane: 'scrub' | 'change' | 'read' = 'change',
    options: CheckOptions = {},
  ): Promise<FileState> {
    const file = row.path;
    const limiter =
      lane === 'scrub' ? this.#scrubLane : lane === 'read' ? this.#readLane : this.#changeLane;
    const { signal = this.#stopping.signal, onBytes } = options;
    const inspect = () => limiter.run(() => this.#check(file, row, signal, onBytes));
    const state = await inspect();
    this.deps.metrics?.fileChecked(row.size);
    const corrupt = state !== 'ok';
    if (corrupt === row.is_corrupted) return state;
    // A file caught mid-replace can look wrong once: act only on a finding seen twice.
    const again = await inspect();
    if (again !== state) return again;
    await this.#flag(row.hash, file, state);
    return state;
  }

  /**
   * Hashes the blob; an intact one's identity is recorded, when it did not change while
   * it was read (the `stat`s before and after agree), for readers to check against.
   */
  async #check(
    name: string,
    row: AssetRow,
    signal: AbortSignal,
    onBytes?: (bytes: number) => void,
  ): Promise<FileState> {
    const identities = this.deps.identities;
    const before = identities && (await this.#blobs.stat(name).catch(() => undefined));
    const state = await this.#read(name, row, signal, onBytes);
    if (!identities) return state;
    if (state !== 'ok' || !before) {
      identities.forget(name);
      return state;
    }
    identities.record(name, before.version);
    const after = await this.#blobs.stat(name).catch(() => undefined);
    if (!after || !identities.matches(name, after.version)) identities.forget(name);
    return state;
  }

  /** Hashes the blob; one stored before digests were kept gets its digest from the same read. */
  async #read(
    name: string,
    row: AssetRow,
    signal: AbortSignal,
    onBytes?: (bytes: number) => void,
  ): Promise<FileState> {
    const withDigest = row.content_sha256 === null;
    const found = await checkBlob(this.#blobs, name, row.timestamp, row.hash, {
      withDigest,
      signal,
      onBytes,
    });
    if (found.sha256 !== undefined) await this.#fillDigest(row.hash, name, found.sha256);
    return found.state;
  }

  /**
   * A reader found the asset's file gone: the asset is corrupted (contract), so it is flagged
   * now rather than when the watch reports it, once a second look agrees. A file that is
   * back is left to the watch, which checks its content.
   */
  async flagIfMissing(row: AssetRow): Promise<void> {
    if (row.is_corrupted) return;
    if (!(await this.#blobs.stat(row.path))) await this.#flag(row.hash, row.path, 'missing');
  }

  /**
   * Index and attribute in one transaction: the update holds the row's lock while the
   * attributes are written, so a PATCH (which takes the same lock) cannot interleave.
   */
  async #fillDigest(hash: string, name: string, sha256: string): Promise<void> {
    await this.deps.db.transaction().execute(async (trx) => {
      const row = await fillContentSha256(trx, hash, sha256);
      if (!row) return;
      try {
        await this.#blobs.writeAttributes(name, attributesFromRow(row));
      } catch (err) {
        // The index has it; the attribute copy is written again by the next change or rebuild.
        this.deps.logger.warn({ err, hash }, 'could not write the content digest to the file');
      }
    });
  }

  async #flag(hash: string, name: string, state: FileState): Promise<void> {
    const corrupt = state !== 'ok';
    const row = await setAssetCorrupted(this.deps.db, hash, corrupt);
    if (!row) return;
    if (corrupt) this.deps.metrics?.corruptionFound(state);
    this.deps.logger.warn(
      { hash, state },
      corrupt ? 'asset flagged corrupted' : 'asset intact again',
    );
    if (state === 'missing') return;
    try {
      await this.#blobs.writeAttributes(name, attributesFromRow(row));
    } catch (err) {
      // The row carries the flag; the attribute copy is refreshed by the next check.
      this.deps.logger.warn({ err, hash }, 'could not write the corrupted flag to the file');
    }
  }

  /**
   * Checks every indexed asset, oldest first. An abort of `options.signal` (a cancelled
   * job) ends it like a shutdown does: with the counts of the files checked so far.
   */
  async scrub(options: ScrubOptions = {}): Promise<ScrubReport> {
    const started = performance.now();
    const report: ScrubReport = { checked: 0, corrupted: 0, missing: 0, duration_ms: 0 };
    const { onBytes, onChecked } = options;
    const signal = options.signal
      ? AbortSignal.any([this.#stopping.signal, options.signal])
      : this.#stopping.signal;
    const check = async (row: AssetRow) => {
      const read = onBytes && ((bytes: number) => onBytes(row.hash, bytes));
      const state = await this.verifyAsset(row, 'scrub', { signal, onBytes: read });
      onChecked?.(row, state);
      return state;
    };
    let after = -1;
    while (!signal.aborted) {
      const rows = await listAssetsAfter(this.deps.db, after, BATCH);
      if (rows.length === 0) break;
      after = rows[rows.length - 1]!.timestamp;
      for (const state of await this.#settle(rows.map(check), signal)) {
        if (state === undefined) continue;
        report.checked++;
        if (state === 'mismatch') report.corrupted++;
        else if (state === 'missing') report.missing++;
      }
    }
    report.duration_ms = Math.round(performance.now() - started);
    if (!signal.aborted) this.deps.metrics?.scrubFinished(report.duration_ms / 1000);
    return report;
  }

  /**
   * Checks what changed at these paths (relative to the root, as the watcher reports them):
   * an asset file, or a folder holding some. Paths inside dot-folders are the service's own.
   */
  async verifyPaths(relativePaths: Iterable<string>): Promise<void> {
    const rows = new Map<string, AssetRow>();
    // Assets' own file names, looked up together: a burst of ingests (another instance's,
    // on a shared folder) is one query, not one each.
    const named = new Map<string, string>();
    for (const raw of relativePaths) {
      const relative = raw.split(path.sep).join('/');
      if (this.#stopping.signal.aborted || relative === '' || isInternal(relative)) continue;
      const parsed = parsePhysicalFilename(path.posix.basename(relative));
      if (parsed) named.set(parsed.hash, relative);
      else
        for (const row of await findAssetsAtOrUnder(this.deps.db, relative))
          rows.set(row.hash, row);
    }
    for (const [hash, name] of named) if (await this.#placedByPeer(name, hash)) named.delete(hash);
    const hashes = [...named.keys()];
    for (let i = 0; i < hashes.length; i += LOOKUP_BATCH) {
      const batch = hashes.slice(i, i + LOOKUP_BATCH);
      for (const row of await findAssetsByHashes(this.deps.db, batch)) rows.set(row.hash, row);
    }
    await this.#settle([...rows.values()].map((row) => this.verifyAsset(row)));
  }

  /**
   * True when another instance announced this file and it is still as placed: recorded as
   * verified without a read (that instance hashed it on the way in), as our own placements are.
   */
  async #placedByPeer(name: string, hash: string): Promise<boolean> {
    const { identities, peerPlacements } = this.deps;
    const version = identities && peerPlacements?.take(hash);
    if (!version) return false;
    const stat = await this.#blobs.stat(name).catch(() => undefined);
    if (stat?.version !== version) return false;
    identities.record(name, version);
    return true;
  }

  /**
   * Waits for every check, so none is still at work once this returns (the database may
   * close next). A check that failed fails the whole, unless the verifier is stopping (or
   * the scrub's own signal ended it): then the failures are the stop's own, and those checks
   * count as not done (undefined).
   */
  async #settle(
    checks: Promise<FileState>[],
    signal: AbortSignal = this.#stopping.signal,
  ): Promise<(FileState | undefined)[]> {
    const settled = await Promise.allSettled(checks);
    return settled.map((result) => {
      if (result.status === 'fulfilled') return result.value;
      if (signal.aborted) return undefined;
      throw result.reason;
    });
  }
}
