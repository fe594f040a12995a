import { sql, type Kysely } from 'kysely';

/**
 * Exact totals without counting: list and search report `pagination.total`, and counting
 * a million index entries per request costs more than the page itself. Statement-level
 * triggers with transition tables keep one count per (dimension, value, flags): the whole
 * index, each application, user, MIME type and tag. A bulk statement (a hard rebuild's
 * delete) costs one grouped upsert, not one per row; keys are applied in a fixed order so
 * concurrent writers cannot deadlock on them.
 */
/** Rows with a sign: +1 for rows added by the statement, -1 for rows it removed. */
const SOURCES = {
  insert: `select 1 as sign, * from new_rows`,
  delete: `select -1 as sign, * from old_rows`,
  update: `select -1 as sign, * from old_rows union all select 1, * from new_rows`,
};

/** Adds the signed rows of `source` to every count they belong to. */
function applyDelta(source: string): string {
  return `
    insert into asset_count (dimension, value, is_trashed, is_corrupted, n)
    select k.dimension, k.value, r.is_trashed, r.is_corrupted, sum(r.sign)
    from (${source}) as r
    cross join lateral (
      select 'all' as dimension, '' as value
      union all select 'application', r.application where r.application is not null
      union all select 'user', r."user" where r."user" is not null
      union all select 'mime_type', r.mime_type
      union all select distinct 'tag', t from unnest(r.tags) as t
    ) as k
    group by k.dimension, k.value, r.is_trashed, r.is_corrupted
    having sum(r.sign) <> 0
    order by k.dimension, k.value, r.is_trashed, r.is_corrupted
    on conflict (dimension, value, is_trashed, is_corrupted)
    do update set n = asset_count.n + excluded.n`;
}

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table asset_count (
      dimension text not null,
      value text not null,
      is_trashed boolean not null,
      is_corrupted boolean not null,
      n bigint not null,
      primary key (dimension, value, is_trashed, is_corrupted)
    )`.execute(db);

  for (const [event, source] of Object.entries(SOURCES)) {
    await sql`
      create function ${sql.id(`asset_count_on_${event}`)}() returns trigger
      language plpgsql as $$
      begin
        ${sql.raw(applyDelta(source))};
        return null;
      end $$`.execute(db);
  }
  await sql`
    create function asset_count_on_truncate() returns trigger language plpgsql as $$
    begin
      delete from asset_count;
      return null;
    end $$`.execute(db);

  await sql`create trigger asset_count_insert after insert on asset
    referencing new table as new_rows for each statement
    execute function asset_count_on_insert()`.execute(db);
  await sql`create trigger asset_count_delete after delete on asset
    referencing old table as old_rows for each statement
    execute function asset_count_on_delete()`.execute(db);
  await sql`create trigger asset_count_update after update on asset
    referencing old table as old_rows new table as new_rows for each statement
    execute function asset_count_on_update()`.execute(db);
  await sql`create trigger asset_count_truncate after truncate on asset
    for each statement execute function asset_count_on_truncate()`.execute(db);

  // Rows indexed before this migration.
  await sql.raw(applyDelta(`select 1 as sign, * from asset`)).execute(db);

  // Hash-prefix search over visible rows: counted from the index alone.
  await sql`create index asset_visible_hash on asset (hash text_pattern_ops)
    where not is_trashed and not is_corrupted`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index asset_visible_hash`.execute(db);
  for (const event of ['insert', 'delete', 'update', 'truncate']) {
    await sql`drop trigger ${sql.id(`asset_count_${event}`)} on asset`.execute(db);
    await sql`drop function ${sql.id(`asset_count_on_${event}`)}()`.execute(db);
  }
  await sql`drop table asset_count`.execute(db);
}
