import { sql, type Kysely } from 'kysely';

/** The `asset_text` row of each row of `source`: its search text and the filter columns. */
const mirror = (source: string) => `
  select r.timestamp, asset_search_text(r.human_filename, r.human_path, r.description, r.tags),
    r.application, r."user", r.mime_type, r.is_trashed, r.is_corrupted
  from (${source}) as r`;

const insertMirror = (source: string) => `
  insert into asset_text (timestamp, text, application, "user", mime_type, is_trashed,
    is_corrupted) ${mirror(source)}`;

/** Rows of one side (`o` old, `n` new) of the pairs that differ in anything `asset_text` holds. */
const changed = (side: 'o' | 'n') => `
  select ${side}.* from old_rows o join new_rows n using (hash)
  where (o.timestamp, o.human_filename, o.human_path, o.description, o.tags, o.application,
      o."user", o.mime_type, o.is_trashed, o.is_corrupted)
    is distinct from
        (n.timestamp, n.human_filename, n.human_path, n.description, n.tags, n.application,
      n."user", n.mime_type, n.is_trashed, n.is_corrupted)`;

const BODIES = {
  insert: insertMirror('select * from new_rows'),
  delete: 'delete from asset_text t using old_rows o where t.timestamp = o.timestamp',
  update: `delete from asset_text t using (${changed('o')}) as o where t.timestamp = o.timestamp;
    ${insertMirror(changed('n'))}`,
  truncate: 'truncate asset_text',
};

async function trgmSchema(db: Kysely<any>): Promise<string | undefined> {
  const { rows } = await sql<{ schema: string }>`
    select n.nspname as schema from pg_extension e
    join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db);
  return rows[0]?.schema;
}

/**
 * What `q` searches, in a narrow table (issue 42). The pg_trgm index on the expression
 * `asset_search_text(...)` over `asset` made a common term cost a visit of most of the
 * wide table's blocks plus the expression computed again for every candidate row (1.9 %
 * of 1,000,000 rows: 13,755 blocks, 54 ms to count). `asset_text` holds, per asset, the
 * lowercased search text (same function, so the same folding) and the filter columns a
 * search combines `q` with most (application, user, MIME type, the flags), so `q` alone
 * or with those is answered here alone: a row a fifth the width, the text stored, not
 * computed. Statement-level triggers keep it in step with `asset` (like `asset_tag`,
 * also under COPY and TRUNCATE); an update rewrites only rows whose text, filter columns,
 * timestamp or flags changed. Trashed and corrupted rows stay, flagged: `include_trashed`
 * searches them too. The expression index on `asset` is dropped: nothing reads it now.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table asset_text (
      timestamp bigint primary key,
      text text not null,
      application text,
      "user" text,
      mime_type text not null,
      is_trashed boolean not null,
      is_corrupted boolean not null
    )`.execute(db);
  for (const [event, body] of Object.entries(BODIES)) {
    await sql`
      create function ${sql.id(`asset_text_on_${event}`)}() returns trigger
      language plpgsql as $$
      begin
        ${sql.raw(body)};
        return null;
      end $$`.execute(db);
  }
  await sql`create trigger asset_text_insert after insert on asset
    referencing new table as new_rows for each statement
    execute function asset_text_on_insert()`.execute(db);
  await sql`create trigger asset_text_delete after delete on asset
    referencing old table as old_rows for each statement
    execute function asset_text_on_delete()`.execute(db);
  await sql`create trigger asset_text_update after update on asset
    referencing old table as old_rows new table as new_rows for each statement
    execute function asset_text_on_update()`.execute(db);
  await sql`create trigger asset_text_truncate after truncate on asset
    for each statement execute function asset_text_on_truncate()`.execute(db);

  // Rows indexed before this migration; the index after them (one build, not row by row).
  await sql.raw(`${insertMirror('select * from asset')} order by 1`).execute(db);
  const trgm = await trgmSchema(db);
  if (trgm !== undefined) {
    await sql`create index asset_text_trgm on asset_text using gin
      (text ${sql.id(trgm, 'gin_trgm_ops')})`.execute(db);
  }
  await sql`drop index if exists asset_search_text_trgm`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  const trgm = await trgmSchema(db);
  if (trgm !== undefined) {
    await sql`create index asset_search_text_trgm on asset using gin
      ((asset_search_text(human_filename, human_path, description, tags))
        ${sql.id(trgm, 'gin_trgm_ops')})`.execute(db);
  }
  for (const event of Object.keys(BODIES)) {
    await sql`drop trigger ${sql.id(`asset_text_${event}`)} on asset`.execute(db);
    await sql`drop function ${sql.id(`asset_text_on_${event}`)}()`.execute(db);
  }
  await sql`drop table asset_text`.execute(db);
}
