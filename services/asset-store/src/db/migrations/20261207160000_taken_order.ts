import { sql, type Kysely } from 'kysely';

/**
 * Issue 42: `GET /search?sort=taken` (the console's timeline) orders by the date taken, else
 * the ingest time, ties by timestamp. Over the visible rows (what the console's first screen
 * asks) this index holds them in that order, so the first page and an `offset_time` cursor
 * read a few index entries instead of sorting every row. `taken_at` is included so the
 * planner can answer from the index alone (an expression's own columns are not readable from
 * it). Hidden rows are few and asked rarely (the trash view sorts by timestamp).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index asset_visible_taken on asset ((coalesce(taken_at, timestamp)), timestamp)
    include (taken_at) where not is_trashed and not is_corrupted`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index asset_visible_taken`.execute(db);
}
