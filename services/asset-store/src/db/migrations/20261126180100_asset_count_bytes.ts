import { sql, type Kysely } from 'kysely';

/**
 * Bytes beside each kept count (`asset_count`), so `/metrics` reads the assets and bytes
 * stored by state from a few rows instead of summing the index at every scrape (about
 * 0.5 s over a million rows). The three row triggers' functions are redefined with the
 * byte sums; the SQL is this migration's own copy, as migrations never share code.
 */
const SOURCES = {
  insert: `select 1 as sign, * from new_rows`,
  delete: `select -1 as sign, * from old_rows`,
  update: `select -1 as sign, * from old_rows union all select 1, * from new_rows`,
};

/** Adds the signed rows of `source`, and their signed sizes, to every count they belong to. */
function applyDelta(source: string): string {
  return `
    insert into asset_count (dimension, value, is_trashed, is_corrupted, n, bytes)
    select k.dimension, k.value, r.is_trashed, r.is_corrupted, sum(r.sign), sum(r.sign * r.size)
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
    on conflict (dimension, value, is_trashed, is_corrupted)
    do update set n = asset_count.n + excluded.n, bytes = asset_count.bytes + excluded.bytes`;
}

/** The functions as `20261121200100_asset_counts` made them, for `down`. */
function applyCountDelta(source: string): string {
  return applyDelta(source)
    .replace(', n, bytes)', ', n)')
    .replace(', sum(r.sign * r.size)\n', '\n')
    .replace(' or sum(r.sign * r.size) <> 0', '')
    .replace(', bytes = asset_count.bytes + excluded.bytes', '');
}

async function defineFunctions(db: Kysely<any>, delta: (source: string) => string) {
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
  // No write may land between the new triggers and the backfill (counted twice).
  await sql`lock table asset in share mode`.execute(db);
  await sql`alter table asset_count add column bytes bigint not null default 0`.execute(db);
  await defineFunctions(db, applyDelta);
  // The bytes of the rows indexed before this migration, in the counts they already have.
  await sql
    .raw(
      applyDelta(`select 1 as sign, * from asset`)
        .replace('sum(r.sign), sum', '0, sum')
        .replace('having sum(r.sign) <> 0 or', 'having'),
    )
    .execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await defineFunctions(db, applyCountDelta);
  await sql`alter table asset_count drop column bytes`.execute(db);
}
