import fs from 'node:fs/promises';
import type { Kysely } from 'kysely';
import { deleteAsset, findAssetByHash } from '../assets/asset.repository.js';
import type { Database } from '../db/database.js';
import { assetErrors } from '../errors.js';
import type { AttributeStore } from '../storage/attributes.js';
import { toAbsolutePath, type StorageLayout } from '../storage/layout.js';
import { removeCachedThumbnails } from '../thumbnails/thumbnail.cache.js';

/** What purging needs. */
export interface PurgeDeps {
  db: Kysely<Database>;
  layout: StorageLayout;
  attributes: AttributeStore;
}

/**
 * Removes an asset for good: attributes (sidecar included), file, cached thumbnails, and
 * last the row, so an interruption leaves a row flagged missing rather than an orphan file
 * that a rebuild would bring back.
 */
export async function purgeAsset(deps: PurgeDeps, hash: string): Promise<void> {
  const row = await findAssetByHash(deps.db, hash);
  if (!row) throw assetErrors.notFound();
  const file = toAbsolutePath(deps.layout, row.path);
  await deps.attributes.remove(file);
  await fs.rm(file, { force: true });
  await removeCachedThumbnails(deps.layout, hash);
  await deleteAsset(deps.db, hash);
}
