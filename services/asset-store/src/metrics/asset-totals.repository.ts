import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { AssetTotals } from './asset-metrics.js';

/** Assets and bytes per (trashed, corrupted): one aggregate over the index, per scrape. */
export async function assetTotalsByState(db: Kysely<Database>): Promise<AssetTotals[]> {
  const rows = await db
    .selectFrom('asset')
    .select(['is_trashed', 'is_corrupted'])
    .select(sql<string>`count(*)`.as('assets'))
    .select(sql<string>`coalesce(sum(size), 0)`.as('bytes'))
    .groupBy(['is_trashed', 'is_corrupted'])
    .execute();
  return rows.map((row) => ({
    is_trashed: row.is_trashed,
    is_corrupted: row.is_corrupted,
    assets: Number(row.assets),
    bytes: Number(row.bytes),
  }));
}
