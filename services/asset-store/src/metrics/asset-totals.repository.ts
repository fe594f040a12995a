import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { AssetTotals } from './asset-metrics.js';

/**
 * Assets and bytes per (trashed, corrupted), from the kept counts (`asset_count`, kept by
 * triggers in slots, summed here): a few rows per scrape, whatever the index's size.
 */
export async function assetTotalsByState(db: Kysely<Database>): Promise<AssetTotals[]> {
  const { rows } = await sql<{
    is_trashed: boolean;
    is_corrupted: boolean;
    n: number;
    bytes: number;
  }>`select is_trashed, is_corrupted, sum(n) as n, sum(bytes) as bytes from asset_count
    where dimension = 'all' group by is_trashed, is_corrupted`.execute(db);
  return rows.map((row) => ({
    is_trashed: row.is_trashed,
    is_corrupted: row.is_corrupted,
    assets: Number(row.n),
    bytes: Number(row.bytes),
  }));
}
