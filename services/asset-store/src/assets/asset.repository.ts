import type { CompiledQuery, Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { AssetRow, AssetRowUpdate, NewAssetRow } from './asset.table.js';

/** Inserts one asset row (nothing read back: ingest already knows every field). */
export async function insertAsset(db: Kysely<Database>, row: NewAssetRow): Promise<void> {
  await db.insertInto('asset').values(row).execute();
}

/** The statement that inserts several asset rows (all or none), for a pipelined session. */
export function insertAssetsQuery(db: Kysely<Database>, rows: NewAssetRow[]): CompiledQuery {
  return db.insertInto('asset').values(rows).compile();
}

/** Inserts several asset rows in one statement (all or none). */
export async function insertAssets(db: Kysely<Database>, rows: NewAssetRow[]): Promise<void> {
  await db.insertInto('asset').values(rows).execute();
}

/** The row with this (lowercase) hash, if any. */
export async function findAssetByHash(
  db: Kysely<Database>,
  hash: string,
): Promise<AssetRow | undefined> {
  return db.selectFrom('asset').selectAll().where('hash', '=', hash).executeTakeFirst();
}

/** The row with this hash, locked until the surrounding transaction ends. */
export async function findAssetByHashForUpdate(
  db: Kysely<Database>,
  hash: string,
): Promise<AssetRow | undefined> {
  return db.selectFrom('asset').selectAll().where('hash', '=', hash).forUpdate().executeTakeFirst();
}

/** Changes some columns of one row; returns the row after the change, if it exists. */
export async function updateAsset(
  db: Kysely<Database>,
  hash: string,
  changes: AssetRowUpdate,
): Promise<AssetRow | undefined> {
  return db
    .updateTable('asset')
    .set(changes)
    .where('hash', '=', hash)
    .returningAll()
    .executeTakeFirst();
}

/** The highest timestamp in the index, or 0 when it is empty. */
export async function maxAssetTimestamp(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('asset')
    .select((eb) => eb.fn.max('timestamp').as('max'))
    .executeTakeFirst();
  return row?.max == null ? 0 : Number(row.max);
}

/** Removes one row; true when it existed. */
export async function deleteAsset(db: Kysely<Database>, hash: string): Promise<boolean> {
  const result = await db.deleteFrom('asset').where('hash', '=', hash).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
