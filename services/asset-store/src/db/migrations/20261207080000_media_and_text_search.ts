import { sql, type Kysely } from 'kysely';

/**
 * Issue 42 ("finding things"): an image's probed facts, and what `q` searches.
 *
 * - `width`, `height`, `taken_at`: null until known. Images indexed before this have none;
 *   the backfill job probes them. Adding nullable columns rewrites nothing, and no row is
 *   updated here (an update would be an `asset.updated` event per row).
 * - `asset_search_text(...)`: filename, path, description and tags, lowercased by the
 *   database, one per line (a `q` term never holds a line feed, so it never matches across
 *   two fields). An expression index on it (no stored column: nothing to write, and the
 *   row the change feed carries stays the record's). `lower` folds any Unicode case under
 *   a UTF-8 locale (PGlite's, and the `C.UTF-8`/`en_US.UTF-8` of the usual PostgreSQL
 *   images); under the `C` locale only ASCII.
 * - A pg_trgm GIN index on that expression, which serves `LIKE '%term%'` (PostgreSQL and
 *   PGlite alike, PGlite loading the extension at start). Where the extension cannot be
 *   created (no privilege), search still answers, by scanning.
 * - `job.kind` admits `backfill`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table asset
    add column width integer,
    add column height integer,
    add column taken_at bigint`.execute(db);
  // What the backfill job walks: images without their facts (few once it has run).
  await sql`create index asset_image_unprobed on asset (timestamp)
    where width is null and mime_type like 'image/%'`.execute(db);
  // concat_ws and array_to_string are only stable (type output functions); over text and
  // text[] they are immutable in fact, which an index expression needs declared.
  await sql`create function asset_search_text(filename text, path text, description text,
      tags text[]) returns text language sql immutable parallel safe
    as $$ select lower(concat_ws(E'\n', filename, path, description,
      array_to_string(tags, E'\n'))) $$`.execute(db);
  await sql`do $$ begin
      create extension if not exists pg_trgm;
    exception when others then
      raise notice 'pg_trgm unavailable (%): q searches by scanning', sqlerrm;
    end $$`.execute(db);
  const { rows } = await sql<{ schema: string }>`
    select n.nspname as schema from pg_extension e
    join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db);
  const trgm = rows[0]?.schema;
  if (trgm !== undefined) {
    await sql`create index asset_search_text_trgm on asset using gin
      ((asset_search_text(human_filename, human_path, description, tags))
        ${sql.id(trgm, 'gin_trgm_ops')})`.execute(db);
  }
  // `path=` matches a folder and everything below it: equality and a prefix `LIKE`.
  await sql`create index asset_human_path on asset (human_path text_pattern_ops, timestamp)
    where human_path is not null`.execute(db);
  await sql`alter table job drop constraint job_kind_check`.execute(db);
  await sql`alter table job add constraint job_kind_check
    check (kind in ('verify', 'rebuild', 'backfill'))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from job where kind = 'backfill'`.execute(db);
  await sql`alter table job drop constraint job_kind_check`.execute(db);
  await sql`alter table job add constraint job_kind_check
    check (kind in ('verify', 'rebuild'))`.execute(db);
  await sql`drop index asset_human_path`.execute(db);
  await sql`drop index if exists asset_search_text_trgm`.execute(db);
  await sql`drop function asset_search_text(text, text, text, text[])`.execute(db);
  await sql`drop index asset_image_unprobed`.execute(db);
  await sql`alter table asset drop column width, drop column height, drop column taken_at`.execute(
    db,
  );
}
