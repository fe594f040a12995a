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

/**
 * Empties the index (hard rebuild); TRUNCATE also resets the kept counts in one step. The
 * rows go first to `asset_rebuild_before`, which the feed's insert trigger compares each
 * row indexed again with (a copy kept from a rebuild cut off stays: it is what the feed
 * last told).
 */
export async function deleteAllAssets(db: Kysely<Database>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`insert into asset_rebuild_before (hash, row)
      select a.hash, to_jsonb(a) from asset a
      on conflict (hash) do nothing`.execute(trx);
    await sql`truncate asset`.execute(trx);
  });
}

/**
 * After a completed rebuild: one `asset.purged` event for each asset of the emptied index
 * that did not come back; answers how many.
 */
export async function settleRebuild(db: Kysely<Database>): Promise<number> {
  const result = await sql<{ n: string }>`select asset_rebuild_settle() as n`.execute(db);
  return Number(result.rows[0]?.n ?? 0);
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
