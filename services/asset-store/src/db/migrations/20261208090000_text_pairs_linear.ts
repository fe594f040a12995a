import { sql, type Kysely } from 'kysely';

/**
 * `text_pairs` in linear time. `substr(t, i, 2)` finds character `i` by walking the UTF-8
 * text from its start, so the first definition cost the square of the length: 2.0 s of the
 * server's CPU for a 16,384-character description (the contract's longest), at every ingest,
 * PATCH and rebuild of such an asset. Two regular-expression scans give the same pairs, one
 * from the first character and one from the second (each matches pairs that do not
 * overlap), in time linear in the length (`bench:text-pairs`). The values are equal for
 * every text, so the index built on the first definition stays valid.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create or replace function text_pairs(t text) returns text[] language sql
    immutable parallel safe
    as $$ select coalesce(array_agg(distinct p), '{}') from
      (select m[1] as p from regexp_matches(t, '(..)', 'g') as m
        union all select m[1] from regexp_matches(substr(t, 2), '(..)', 'g') as m) as s
      where p !~ '\\s' $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`create or replace function text_pairs(t text) returns text[] language sql
    immutable parallel safe
    as $$ select coalesce(array_agg(distinct p), '{}') from
      (select substr(t, i, 2) as p from generate_series(1, length(t) - 1) as i) as s
      where p !~ '\\s' $$`.execute(db);
}
