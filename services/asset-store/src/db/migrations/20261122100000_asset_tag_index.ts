import { sql, type Kysely } from 'kysely';

/** The `asset` columns `asset_tag` carries besides the tag. */
const MIRRORED = `timestamp, application, "user", mime_type, tags`;

/** `asset_tag` rows of the visible rows of `source` (one per distinct tag). */
function mirror(source: string): string {
  return `
    select t.tag, r.timestamp, r.application, r."user", r.mime_type, r.tags
    from (${source}) as r
    cross join lateral (select distinct unnest(r.tags) as tag) as t
    where not r.is_trashed and not r.is_corrupted
    order by t.tag, r.timestamp`;
}

const insertMirror = (source: string) =>
  `insert into asset_tag (tag, ${MIRRORED}) ${mirror(source)}`;

const deleteMirror = (source: string) => `
  delete from asset_tag a using (${mirror(source)}) as m
  where a.tag = m.tag and a.timestamp = m.timestamp`;

/** Pairs of old and new rows that differ in anything `asset_tag` holds. */
const changed = (side: 'o' | 'n') => `
  select ${side}.* from old_rows o join new_rows n using (hash)
  where (o.timestamp, o.application, o."user", o.mime_type, o.tags, o.is_trashed, o.is_corrupted)
    is distinct from
        (n.timestamp, n.application, n."user", n.mime_type, n.tags, n.is_trashed, n.is_corrupted)`;

const BODIES = {
  insert: insertMirror('select * from new_rows'),
  delete: deleteMirror('select * from old_rows'),
  update: `${deleteMirror(changed('o'))}; ${insertMirror(changed('n'))}`,
  truncate: 'truncate asset_tag',
};

/**
 * A btree cannot hold one entry per array element, so a search by tag plus another
 * filter had to walk every entry of the other filter (45,000 index entries to count
 * 9,000 matches at 1,000,000 rows). `asset_tag` holds one row per tag of each visible
 * asset, keyed by (tag, timestamp) and carrying the other filter columns, so a tag
 * search walks only that tag's entries, in timestamp order, from the index alone.
 * Statement-level triggers keep it in step with `asset` (like `asset_count`); an update
 * only touches rows whose tags, filter columns, timestamp or flags changed.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table asset_tag (
      tag text not null,
      timestamp bigint not null,
      application text,
      "user" text,
      mime_type text not null,
      tags text[] not null,
      primary key (tag, timestamp) include (application, "user", mime_type, tags)
    )`.execute(db);

  for (const [event, body] of Object.entries(BODIES)) {
    await sql`
      create function ${sql.id(`asset_tag_on_${event}`)}() returns trigger
      language plpgsql as $$
      begin
        ${sql.raw(body)};
        return null;
      end $$`.execute(db);
  }
  await sql`create trigger asset_tag_insert after insert on asset
    referencing new table as new_rows for each statement
    execute function asset_tag_on_insert()`.execute(db);
  await sql`create trigger asset_tag_delete after delete on asset
    referencing old table as old_rows for each statement
    execute function asset_tag_on_delete()`.execute(db);
  await sql`create trigger asset_tag_update after update on asset
    referencing old table as old_rows new table as new_rows for each statement
    execute function asset_tag_on_update()`.execute(db);
  await sql`create trigger asset_tag_truncate after truncate on asset
    for each statement execute function asset_tag_on_truncate()`.execute(db);

  // Rows indexed before this migration.
  await sql.raw(insertMirror('select * from asset')).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const event of Object.keys(BODIES)) {
    await sql`drop trigger ${sql.id(`asset_tag_${event}`)} on asset`.execute(db);
    await sql`drop function ${sql.id(`asset_tag_on_${event}`)}()`.execute(db);
  }
  await sql`drop table asset_tag`.execute(db);
}
