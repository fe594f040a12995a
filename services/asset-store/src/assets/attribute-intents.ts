import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import type { BlobStore } from '../storage/blob-store.js';
import { attributesFromRow } from './asset.model.js';
import { findAssetByHashForUpdate } from './asset.repository.js';
import type { AssetRow } from './asset.table.js';
import {
  deleteAttributeIntent,
  deleteAttributeIntentsOf,
  listAttributeIntentHashes,
} from './attribute-intent.repository.js';

/** What writing attributes from rows needs. */
export interface AttributeWriterDeps {
  db: Kysely<Database>;
  /** Where the assets' attributes are written. */
  blobs: Pick<BlobStore, 'writeAttributes'>;
  logger: Pick<Logger, 'warn'>;
}

/** Writes a row's metadata to its file's attributes; a missing file is logged, not thrown. */
export async function writeRowAttributes(deps: AttributeWriterDeps, row: AssetRow): Promise<void> {
  try {
    await deps.blobs.writeAttributes(row.path, attributesFromRow(row));
  } catch (err) {
    // A missing file cannot carry attributes; the row still records the change, and
    // the verifier reports the file as gone.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    deps.logger.warn({ hash: row.hash }, 'asset file missing; attributes not written');
  }
}

/**
 * Puts one asset's attributes back in line with its row (under the row lock), then deletes
 * the intent `id`, or every intent of the asset (at start, when no change is under way).
 */
export async function realignAttributes(
  deps: AttributeWriterDeps,
  hash: string,
  id?: number,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const row = await findAssetByHashForUpdate(trx, hash);
    if (row) await writeRowAttributes(deps, row);
    if (id === undefined) await deleteAttributeIntentsOf(trx, hash);
    else await deleteAttributeIntent(trx, id);
  });
}

/**
 * At start, before anything reads attributes (a rebuild): every attribute write a crash
 * cut off before its change committed is undone by writing the row's (acknowledged)
 * metadata again. Answers how many assets were realigned.
 */
export async function replayAttributeIntents(deps: AttributeWriterDeps): Promise<number> {
  const hashes = await listAttributeIntentHashes(deps.db);
  for (const hash of hashes) await realignAttributes(deps, hash);
  return hashes.length;
}
