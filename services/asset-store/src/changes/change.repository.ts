import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { AssetEventRow } from './change.table.js';

/**
 * The committed events after position `after`, in position order, with the last position
 * pruned, read in one statement (one snapshot): a prune either happened before it (the
 * events are gone and `pruned_through` says so) or not at all for this read.
 */
export async function eventsAfter(
  db: Kysely<Database>,
  after: number,
  limit: number,
): Promise<{ rows: AssetEventRow[]; prunedThrough: number }> {
  const result = await sql<AssetEventRow & { pruned_through: number }>`
    select h.pruned_through, e.* from asset_event_head h
    left join lateral (
      select * from asset_event where pos > ${after} order by pos limit ${limit}
    ) e on true
    order by e.pos`.execute(db);
  const first = result.rows[0];
  return {
    rows: result.rows.flatMap(({ pruned_through: _, ...row }) => (row.pos === null ? [] : [row])),
    prunedThrough: Number(first?.pruned_through ?? 0),
  };
}

/** The last position given, and the last one pruned. */
export async function eventHead(
  db: Kysely<Database>,
): Promise<{ last: number; pruned_through: number }> {
  return db
    .selectFrom('asset_event_head')
    .select(['last', 'pruned_through'])
    .executeTakeFirstOrThrow();
}

/**
 * Deletes up to `batch` of the events written before `cutoffMs` (the oldest first) and
 * records the last position deleted; returns how many went. Positions grow with time, so
 * everything up to the newest old event goes.
 */
export async function pruneEvents(
  db: Kysely<Database>,
  cutoffMs: number,
  batch: number,
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const through = await sql<{ pos: number | null }>`
      select max(pos) as pos from (
        select pos from asset_event where at < ${cutoffMs} and pos is not null
        order by pos limit ${batch}
      ) as old`.execute(trx);
    const pos = through.rows[0]?.pos;
    if (pos === null || pos === undefined) return 0;
    const deleted = await trx.deleteFrom('asset_event').where('pos', '<=', pos).executeTakeFirst();
    await trx
      .updateTable('asset_event_head')
      .set({ pruned_through: sql<number>`greatest(pruned_through, ${pos})` })
      .execute();
    return Number(deleted.numDeletedRows);
  });
}
