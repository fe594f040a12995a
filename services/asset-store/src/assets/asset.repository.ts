import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import {
  ASSET_ROW_COLUMNS,
  type AssetRow,
  type AssetRowUpdate,
  type NewAssetRow,
} from './asset.table.js';

/** Inserts one asset row (nothing read back: ingest already knows every field). */
export async function insertAsset(db: Kysely<Database>, row: NewAssetRow): Promise<void> {
  await db.insertInto('asset').values(row).execute();
}

const INSERT_INTO = `insert into "asset" (${ASSET_ROW_COLUMNS.map((c) => `"${c}"`).join(', ')}) values `;

/**
 * The statement that inserts several asset rows (all or none), for a pipelined session.
 * Written out directly rather than built by Kysely, as the writer makes one per batch and
 * building it costs main-thread CPU on every small ingest (bench/NOTES.md).
 */
export function insertAssetsQuery(rows: readonly NewAssetRow[]): CompiledQuery {
  const parameters: unknown[] = [];
  const tuples: string[] = [];
  for (const row of rows) {
    const first = parameters.length;
    // Absent optional fields go in as the columns' defaults would: null, or false for flags.
    for (const column of ASSET_ROW_COLUMNS) {
      parameters.push(
        row[column] ?? (column === 'is_trashed' || column === 'is_corrupted' ? false : null),
      );
    }
    tuples.push(`(${ASSET_ROW_COLUMNS.map((_, i) => `$${first + i + 1}`).join(', ')})`);
  }
  return CompiledQuery.raw(INSERT_INTO + tuples.join(', '), parameters);
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

/** The rows with these hashes (those that exist), in one query. */
export async function findAssetsByHashes(
  db: Kysely<Database>,
  hashes: readonly string[],
): Promise<AssetRow[]> {
  if (hashes.length === 0) return [];
  return db.selectFrom('asset').selectAll().where('hash', 'in', hashes).execute();
}

/** The row with this hash, locked until the surrounding transaction ends. */
export async function findAssetByHashForUpdate(
  db: Kysely<Database>,
  hash: string,
): Promise<AssetRow | undefined> {
  return db.selectFrom('asset').selectAll().where('hash', '=', hash).forUpdate().executeTakeFirst();
}

/**
 * The row with this hash as it stands once no transaction holds it locked: a read that
 * waits for a purge in progress to delete the row or give up.
 */
export async function findAssetByHashSettled(
  db: Kysely<Database>,
  hash: string,
): Promise<AssetRow | undefined> {
  return db.selectFrom('asset').selectAll().where('hash', '=', hash).forShare().executeTakeFirst();
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
