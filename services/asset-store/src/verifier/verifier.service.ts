import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { findAssetsByHashes } from '../assets/asset.repository.js';
import type { AssetRow } from '../assets/asset.table.js';
import type { Database } from '../db/database.js';
import type { BlobStore } from '../storage/blob-store.js';
import { isInternal, parsePhysicalFilename } from '../storage/layout.js';
import type { FileIdentities } from '../storage/fs/file-identities.js';
import type { PeerPlacements } from '../storage/fs/placement-notices.js';
import type { VerifierMetrics } from '../metrics/asset-metrics.js';
import { AssetCheck, type CheckLane, type CheckOptions } from './asset-check.js';
import type { FileState } from './file-check.js';
import { findAssetsAtOrUnder, listAssetsAfter } from './verifier.repository.js';

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
  /** Where the assets are read and their flags written. */
  blobs: BlobStore;
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

const BATCH = 256;

/**
 * Decides what to check and when: a full scrub of the index, or the assets at paths that
 * changed; each asset's check and flag is `AssetCheck`'s.
 */
export class Verifier {
  readonly #stopping = new AbortController();
  readonly #check: AssetCheck;

  constructor(private readonly deps: VerifierDeps) {
    this.#check = new AssetCheck(
      { ...deps, scrubConcurrency: deps.concurrency ?? 2 },
      this.#stopping.signal,
    );
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
  verifyAsset(
    row: AssetRow,
    lane: CheckLane = 'change',
    options: CheckOptions = {},
  ): Promise<FileState> {
    return this.#check.verifyAsset(row, lane, options);
  }

  /** A reader found the asset's file gone: flagged now, once a second look agrees. */
  flagIfMissing(row: AssetRow): Promise<void> {
    return this.#check.flagIfMissing(row);
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
    const stat = await this.deps.blobs.stat(name).catch(() => undefined);
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
