import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { attributesFromRow } from '../assets/asset.model.js';
import type { AssetRow } from '../assets/asset.table.js';
import { Limiter } from '../concurrency/limiter.js';
import type { Database } from '../db/database.js';
import type { VerifierMetrics } from '../metrics/asset-metrics.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { FileIdentities } from '../storage/fs/file-identities.js';
import { checkBlob, type FileState } from './file-check.js';
import { fillContentSha256, setAssetCorrupted } from './verifier.repository.js';

/** What checking one asset needs. */
export interface AssetCheckDeps {
  db: Kysely<Database>;
  /** Where the assets are read and their flags written. */
  blobs: BlobStore;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Identities of files found intact, for readers to check theirs against. */
  identities?: FileIdentities;
  /** Files a scrub hashes at once; bounded so a scrub does not starve requests. */
  scrubConcurrency: number;
  metrics?: VerifierMetrics;
}

/** How one check is run: the signal that stops it and an ear for the bytes it reads. */
export interface CheckOptions {
  signal?: AbortSignal;
  onBytes?: (bytes: number) => void;
}

/** Which lane a check waits in: a scrub's, a changed file's, or a download's. */
export type CheckLane = 'scrub' | 'change' | 'read';

/**
 * Checks one asset against its hash and keeps `is_corrupted` (row and attributes) in step:
 * set on a mismatch or a missing file, cleared when the content matches again. Each kind of
 * check waits in a lane of its own, so a long scrub never delays a changed file or a reader.
 */
export class AssetCheck {
  readonly #scrubLane: Limiter;
  readonly #changeLane = new Limiter(1);
  /** Downloads waiting on a check: a lane of their own, so a scrub never delays them. */
  readonly #readLane = new Limiter(4);

  constructor(
    private readonly deps: AssetCheckDeps,
    /** Ends every check at its next chunk (the verifier's stop). */
    private readonly stopping: AbortSignal,
  ) {
    this.#scrubLane = new Limiter(deps.scrubConcurrency);
  }

  /** Checks one indexed asset and fixes its flag; returns what the file looks like. */
  async verifyAsset(
    row: AssetRow,
    lane: CheckLane = 'change',
    options: CheckOptions = {},
  ): Promise<FileState> {
    const file = row.path;
    const limiter =
      lane === 'scrub' ? this.#scrubLane : lane === 'read' ? this.#readLane : this.#changeLane;
    const { signal = this.stopping, onBytes } = options;
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
    const before = identities && (await this.deps.blobs.stat(name).catch(() => undefined));
    const state = await this.#read(name, row, signal, onBytes);
    if (!identities) return state;
    if (state !== 'ok' || !before) {
      identities.forget(name);
      return state;
    }
    identities.record(name, before.version);
    const after = await this.deps.blobs.stat(name).catch(() => undefined);
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
    const found = await checkBlob(this.deps.blobs, name, row.timestamp, row.hash, {
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
    if (!(await this.deps.blobs.stat(row.path))) await this.#flag(row.hash, row.path, 'missing');
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
        await this.deps.blobs.writeAttributes(name, attributesFromRow(row));
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
      await this.deps.blobs.writeAttributes(name, attributesFromRow(row));
    } catch (err) {
      // The row carries the flag; the attribute copy is refreshed by the next check.
      this.deps.logger.warn({ err, hash }, 'could not write the corrupted flag to the file');
    }
  }
}
