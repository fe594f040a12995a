import type { Kysely } from 'kysely';
import type { AssetRow } from '../assets/asset.table.js';
import type { Database } from '../db/database.js';

/** The next batch of rows after `afterTimestamp`, oldest first: a keyset walk of the index. */
export async function listAssetsAfter(
  db: Kysely<Database>,
  afterTimestamp: number,
  limit: number,
): Promise<AssetRow[]> {
  return db
    .selectFrom('asset')
    .selectAll()
    .where('timestamp', '>', afterTimestamp)
    .orderBy('timestamp', 'asc')
    .limit(limit)
    .execute();
}

/** Rows whose file lies at `relativePath` or anywhere under it as a folder. */
export async function findAssetsAtOrUnder(
  db: Kysely<Database>,
  relativePath: string,
): Promise<AssetRow[]> {
  const folder = `${relativePath.replace(/[\\%_]/g, (c) => `\\${c}`)}/%`;
  return db
    .selectFrom('asset')
    .selectAll()
    .where((eb) => eb.or([eb('path', '=', relativePath), eb('path', 'like', folder)]))
    .execute();
}

/** Sets or clears the corrupted flag; the row after the change, if it still exists. */
export async function setAssetCorrupted(
  db: Kysely<Database>,
  hash: string,
  corrupted: boolean,
): Promise<AssetRow | undefined> {
  return db
    .updateTable('asset')
    .set({ is_corrupted: corrupted })
    .where('hash', '=', hash)
    .returningAll()
    .executeTakeFirst();
}

/** Records a content digest found by a scrub, unless one is known by now. */
export async function fillContentSha256(
  db: Kysely<Database>,
  hash: string,
  sha256: string,
): Promise<AssetRow | undefined> {
  return db
    .updateTable('asset')
    .set({ content_sha256: sha256 })
    .where('hash', '=', hash)
    .where('content_sha256', 'is', null)
    .returningAll()
    .executeTakeFirst();
}
