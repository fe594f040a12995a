import type { Kysely } from 'kysely';
import { deleteAsset, findAssetByHashForUpdate } from '../assets/asset.repository.js';
import type { Database } from '../db/database.js';
import { assetErrors } from '../errors.js';
import type { BlobStore } from '../storage/blob-store.js';
import { thumbnailsOf } from '../thumbnails/thumbnail.cache.js';

/** What purging needs. */
export interface PurgeServiceDeps {
  db: Kysely<Database>;
  /** Where the asset, its attributes and its cached thumbnails are deleted. */
  blobs: Pick<BlobStore, 'delete' | 'removeCached'>;
}

/**
 * Removes an asset for good: attributes (sidecar included), file, cached thumbnails, and
 * last the row, so an interruption leaves a row flagged missing rather than an orphan file
 * that a rebuild would bring back. All of it inside one transaction holding the row's lock,
 * so a download that finds the file already gone waits for the row and answers 404, not
 * 500 for a missing file.
 */
export class PurgeService {
  constructor(private readonly deps: PurgeServiceDeps) {}

  /** `DELETE /admin/asset/{hash}`: 404 when no asset has this hash. */
  async purge(hash: string): Promise<void> {
    const { db, blobs } = this.deps;
    await db.transaction().execute(async (trx) => {
      const row = await findAssetByHashForUpdate(trx, hash);
      if (!row) throw assetErrors.notFound();
      await blobs.delete(row.path);
      await blobs.removeCached(thumbnailsOf(hash));
      await deleteAsset(trx, hash);
    });
  }
}
