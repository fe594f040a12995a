import type { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import { assetErrors } from '../errors.js';
import {
  blobNotFound,
  type BlobStore,
  type ByteRange,
  type DownloadResponse,
} from '../storage/blob-store.js';
import type { FileIdentities } from '../storage/fs/file-identities.js';
import { toAbsolutePath, type StorageLayout } from '../storage/layout.js';
import { toAssetRecord, type AssetRecord } from './asset.model.js';
import {
  findAssetByHash,
  findAssetByHashForUpdate,
  findAssetByHashSettled,
  updateAsset,
} from './asset.repository.js';
import type { AssetPatch } from './asset.schemas.js';
import type { AssetRow, AssetRowUpdate } from './asset.table.js';
import { deleteAttributeIntent, insertAttributeIntent } from './attribute-intent.repository.js';
import { realignAttributes, writeRowAttributes } from './attribute-intents.js';

/** What reading and changing assets needs from outside. */
export interface AssetServiceDeps {
  db: Kysely<Database>;
  /** Where the assets are. */
  blobs: BlobStore;
  /**
   * Set when the blobs are files under this root: downloads then serve the file by its
   * path (`send`), as they always have.
   */
  layout?: StorageLayout;
  logger: Pick<Logger, 'warn'>;
  /** Told when a reader finds an asset's file gone (the verifier, in the app). */
  missingFiles: MissingFileReporter;
  /** Identities of files verified intact (`FileIdentities`), shared with the verifier. */
  identities: FileIdentities;
  /** Downloads redirect to the storage where it can presign (`s3_download_redirect`). */
  redirectDownloads?: boolean;
}

/** The port a reader reports a vanished file through, so the asset gets flagged corrupted. */
export interface MissingFileReporter {
  /** Flags the asset when its file is really gone; a file that is back is left alone. */
  flagIfMissing(row: AssetRow): Promise<void>;
  /** Hashes the file now (flagging it when it no longer matches); what it found. */
  verifyAsset(row: AssetRow, lane: 'read'): Promise<'ok' | 'mismatch' | 'missing'>;
}

/** An asset whose file is there to be served. */
export interface LocatedAsset {
  record: AssetRecord;
  /** The blob's name (its path relative to the storage, as indexed). */
  name: string;
  /** The file's path, when the assets are files; else `open` is the only way in. */
  absolutePath?: string;
  /** The content, or one range of it (ENOENT when the blob went meanwhile). */
  open(range?: ByteRange): Promise<Readable>;
  /** The physical filename, for `Content-Disposition` when no human name is known. */
  filename: string;
  size: number;
  /** Plain SHA-256 of the content, lowercase hex, when the index knows it. */
  contentSha256?: string;
  /** Set when downloads redirect: a URL the client GETs the blob from itself, for `seconds`. */
  presign?: (response: DownloadResponse, seconds: number) => Promise<string>;
}

/**
 * Reads and changes existing assets. Every change updates the row and rewrites the file's
 * attributes inside one transaction holding the row lock, so the two never disagree and
 * concurrent changes to one asset apply in order.
 */
export class AssetService {
  constructor(private readonly deps: AssetServiceDeps) {}

  /** The metadata record; corrupted assets included (with `is_corrupted: true`). */
  async getRecord(hash: string): Promise<AssetRecord> {
    const row = await findAssetByHash(this.deps.db, hash);
    if (!row) throw assetErrors.notFound();
    return toAssetRecord(row);
  }

  /**
   * The asset's file for download and thumbnails; 500 when it is gone (then flagged
   * corrupted, so metadata, list and search agree with this answer) or flagged corrupted,
   * 404 when a purge took it meanwhile.
   */
  async locate(hash: string): Promise<LocatedAsset> {
    const row = await findAssetByHash(this.deps.db, hash);
    if (!row) throw assetErrors.notFound();
    const { blobs, layout } = this.deps;
    const stat = await blobs.stat(row.path);
    if (!stat) throw await this.#explainGone(hash, blobNotFound(row.path));
    if (row.is_corrupted) throw assetErrors.corrupted();
    // A file changed since it was verified (or never verified by this process) is hashed
    // before a byte is served: never altered bytes under the original ETag.
    if (!this.deps.identities.matches(row.path, stat.version)) {
      const state = await this.deps.missingFiles.verifyAsset(row, 'read');
      if (state === 'missing') throw assetErrors.missingFile();
      if (state !== 'ok') throw assetErrors.corrupted();
    }
    const size = stat.size;
    const presign =
      this.deps.redirectDownloads && blobs.presignedDownload
        ? blobs.presignedDownload.bind(blobs, row.path)
        : undefined;
    return {
      record: toAssetRecord(row),
      name: row.path,
      ...(layout ? { absolutePath: toAbsolutePath(layout, row.path) } : {}),
      // A whole read names its span too: the store may read a large span its own way.
      open: (range) =>
        blobs.read(row.path, range ?? (size > 0 ? { start: 0, end: size - 1 } : undefined)),
      filename: row.path.split('/').pop()!,
      size,
      ...(row.content_sha256 === null ? {} : { contentSha256: row.content_sha256 }),
      ...(presign ? { presign } : {}),
    };
  }

  /**
   * Locates the asset and hands its file to `use` (the download). A purge can still remove
   * the file between the two; `use` failing on the file being gone is answered as `locate`
   * answers it.
   */
  async withFile<T>(hash: string, use: (asset: LocatedAsset) => Promise<T>): Promise<T> {
    const asset = await this.locate(hash);
    try {
      return await use(asset);
    } catch (err) {
      throw await this.#explainGone(hash, err);
    }
  }

  /**
   * What a reader's failure on a file that is not there becomes: 404 once a purge that held
   * the row has deleted it, else 500 with the asset flagged. Other failures are unchanged.
   */
  async #explainGone(hash: string, err: unknown): Promise<unknown> {
    if ((err as NodeJS.ErrnoException | null)?.code !== 'ENOENT') return err;
    const settled = await findAssetByHashSettled(this.deps.db, hash);
    if (!settled) return assetErrors.notFound();
    await this.deps.missingFiles.flagIfMissing(settled);
    return assetErrors.missingFile();
  }

  /** `PATCH`: replaces tags and/or description; the file is never renamed. */
  async update(hash: string, patch: AssetPatch): Promise<void> {
    const changes: AssetRowUpdate = {};
    if (patch.tags !== undefined) changes.tags = patch.tags;
    if (patch.description !== undefined) {
      changes.description = patch.description === '' ? null : patch.description;
    }
    await this.change(hash, changes);
  }

  /** Moves to the trash; trashing a trashed asset is fine. */
  async trash(hash: string): Promise<void> {
    await this.change(hash, { is_trashed: true });
  }

  /** Takes out of the trash; restoring an untrashed asset is fine. */
  async restore(hash: string): Promise<void> {
    await this.change(hash, { is_trashed: false });
  }

  /**
   * Row and attributes change in one transaction, the attributes written (and flushed)
   * before it commits. An intent committed first, and deleted with the change, covers a
   * crash in between: the start finds it and writes the row's metadata back to the file
   * (`replayAttributeIntents`), so the attributes never stay ahead of what was acknowledged.
   */
  private async change(hash: string, changes: AssetRowUpdate): Promise<void> {
    if (Object.keys(changes).length === 0) {
      if (!(await findAssetByHash(this.deps.db, hash))) throw assetErrors.notFound();
      return;
    }
    const intent = await insertAttributeIntent(this.deps.db, hash);
    try {
      await this.deps.db.transaction().execute(async (trx) => {
        const current = await findAssetByHashForUpdate(trx, hash);
        if (!current) throw assetErrors.notFound();
        const updated = await updateAsset(trx, hash, changes);
        await writeRowAttributes(this.deps, updated ?? current);
        await deleteAttributeIntent(trx, intent);
      });
    } catch (err) {
      // Rolled back: the attributes may be ahead of the row. Put them back now; failing
      // that, the intent stays for the next start.
      await realignAttributes(this.deps, hash, intent).catch((realignErr: unknown) =>
        this.deps.logger.warn({ err: realignErr, hash }, 'attributes left for the next start'),
      );
      throw err;
    }
  }
}
