import { sql, type Kysely } from 'kysely';

/**
 * Several instances (issue 27): each writer's insert used to add to the same `asset_count`
 * rows (the `all` count first of all), so one instance's open ingest transaction, which
 * stays open while its files are fsynced, held every other instance's inserts. Counts are
 * now kept in slots, one per writing backend (its pid modulo SLOTS), so writers on
 * different connections add to different rows; readers sum the slots. Every statement of a
 * transaction uses the same slot, so the fixed key order still rules out deadlocks.
 */
const SLOTS = 32;

const SOURCES = {
  insert: `select 1 as sign, * from new_rows`,
  delete: `select -1 as sign, * from old_rows`,
  update: `select -1 as sign, * from old_rows union all select 1, * from new_rows`,
};

/**
 * Adds the signed rows of `source`, and their signed sizes (`20261126180100_asset_count_bytes`),
 * to this backend's slot of every count they belong to.
 */
function applyDelta(source: string): string {
  return `
    insert into asset_count (dimension, value, is_trashed, is_corrupted, slot, n, bytes)
    select k.dimension, k.value, r.is_trashed, r.is_corrupted, pg_backend_pid() % ${SLOTS},
      sum(r.sign), sum(r.sign * r.size)
    from (${source}) as r
    cross join lateral (
      select 'all' as dimension, '' as value
      union all select 'application', r.application where r.application is not null
      union all select 'user', r."user" where r."user" is not null
      union all select 'mime_type', r.mime_type
      union all select distinct 'tag', t from unnest(r.tags) as t
    ) as k
    group by k.dimension, k.value, r.is_trashed, r.is_corrupted
    having sum(r.sign) <> 0 or sum(r.sign * r.size) <> 0
    order by k.dimension, k.value, r.is_trashed, r.is_corrupted
    on conflict (dimension, value, is_trashed, is_corrupted, slot)
    do update set n = asset_count.n + excluded.n, bytes = asset_count.bytes + excluded.bytes`;
}

/** The same functions as before, as `20261121200100_asset_counts` wrote them. */
function applyDeltaUnslotted(source: string): string {
  return applyDelta(source)
    .replace(`, slot, n, bytes)`, `, n, bytes)`)
    .replace(`, pg_backend_pid() % ${SLOTS},\n`, `,\n`)
    .replace(`, is_corrupted, slot)`, `, is_corrupted)`);
}

async function replaceFunctions(db: Kysely<any>, delta: (source: string) => string) {
  for (const [event, source] of Object.entries(SOURCES)) {
    await sql`
      create or replace function ${sql.id(`asset_count_on_${event}`)}() returns trigger
      language plpgsql as $$
      begin
        ${sql.raw(delta(source))};
        return null;
      end $$`.execute(db);
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table asset_count add column slot smallint not null default 0`.execute(db);
  await sql`alter table asset_count drop constraint asset_count_pkey`.execute(db);
  await sql`alter table asset_count
    add primary key (dimension, value, is_trashed, is_corrupted, slot)`.execute(db);
  await replaceFunctions(db, applyDelta);
}

export async function down(db: Kysely<any>): Promise<void> {
  await replaceFunctions(db, applyDeltaUnslotted);
  await sql`create table asset_count_folded as
    select dimension, value, is_trashed, is_corrupted, sum(n)::bigint as n,
      sum(bytes)::bigint as bytes
    from asset_count group by 1, 2, 3, 4`.execute(db);
  await sql`delete from asset_count`.execute(db);
  await sql`alter table asset_count drop constraint asset_count_pkey`.execute(db);
  await sql`alter table asset_count drop column slot`.execute(db);
  await sql`alter table asset_count add primary key (dimension, value, is_trashed, is_corrupted)`.execute(
    db,
  );
  await sql`insert into asset_count select * from asset_count_folded`.execute(db);
  await sql`drop table asset_count_folded`.execute(db);
}
