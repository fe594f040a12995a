import { sql, type Kysely } from 'kysely';
import { ASSET_ROW_COLUMNS, type NewAssetRow } from '../assets/asset.table.js';
import type { Database } from '../db/database.js';

/** Every column but the key: a rebuilt row replaces them all. */
const REPLACED = ASSET_ROW_COLUMNS.filter((c) => c !== 'hash');

/** Inserts the row, or replaces every field of the row with the same hash. */
export async function upsertAsset(db: Kysely<Database>, row: NewAssetRow): Promise<void> {
  await db
    .insertInto('asset')
    .values(row)
    .onConflict((oc) =>
      oc.column('hash').doUpdateSet((eb) => ({
        ...Object.fromEntries(REPLACED.map((c) => [c, eb.ref(`excluded.${c}`)])),
        indexed_at: sql<Date>`now()`,
      })),
    )
    .execute();
}

/** Empties the index (hard rebuild); TRUNCATE also resets the kept counts in one step. */
export async function deleteAllAssets(db: Kysely<Database>): Promise<void> {
  await sql`truncate asset`.execute(db);
}

/** True when the index holds no row at all. */
export async function isIndexEmpty(db: Kysely<Database>): Promise<boolean> {
  const row = await db.selectFrom('asset').select('hash').limit(1).executeTakeFirst();
  return row === undefined;
}

/** Hashes looked up per statement, to bound its parameters. */
const LOOKUP_CHUNK = 1000;

/** Those of `hashes` that no row has. */
export async function unindexedHashes(
  db: Kysely<Database>,
  hashes: readonly string[],
): Promise<string[]> {
  const known = new Set<string>();
  for (let i = 0; i < hashes.length; i += LOOKUP_CHUNK) {
    const rows = await db
      .selectFrom('asset')
      .select('hash')
      .where('hash', 'in', hashes.slice(i, i + LOOKUP_CHUNK))
      .execute();
    for (const row of rows) known.add(row.hash);
  }
  return hashes.filter((h) => !known.has(h));
}
