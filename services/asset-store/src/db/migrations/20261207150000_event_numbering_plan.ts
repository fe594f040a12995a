import { sql, type Kysely } from 'kysely';
import { NUMBER_STATIC, numberingFunction } from './20261207070000_asset_event.js';

/**
 * The numbering at each commit (`20261207070000_asset_event`) must read only the events
 * not numbered yet. PL/pgSQL planned it once per connection while the feed was small (a
 * hash join over a sequential scan of all of `asset_event`) and kept that plan as the feed
 * grew: each commit read every event kept, with the commit-order lock held (4 ms a commit
 * at 20,000 events). `EXECUTE` plans it at each commit for the feed as it is. Bitmap scans
 * are off in the function: without statistics (PGlite has no autovacuum, a server may have
 * it off) the planner took one over the `pos is null` entries, and a bitmap scan visits the
 * dead ones of every event ever numbered (2.6 ms a commit); the plain scan of
 * `asset_event_unnumbered` marks those it passes, so later ones skip them, vacuum or not.
 */
const NUMBER_PLANNED = `
      execute 'with p as (
          select seq, row_number() over (order by seq) as rn from asset_event where pos is null
        )
        update asset_event e set pos = $1 + p.rn from p where e.seq = p.seq'
      using first`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create or replace function ${sql.raw(numberingFunction(NUMBER_PLANNED))}`.execute(db);
  await sql`alter function asset_event_number() set enable_bitmapscan = off`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter function asset_event_number() reset enable_bitmapscan`.execute(db);
  await sql`create or replace function ${sql.raw(numberingFunction(NUMBER_STATIC))}`.execute(db);
}
