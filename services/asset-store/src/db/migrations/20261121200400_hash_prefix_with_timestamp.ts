import { sql, type Kysely } from 'kysely';

/**
 * A hash-prefix search finds its page's timestamps, and counts its matches, from the
 * visible hash index alone once that index carries the timestamp.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`drop index asset_visible_hash`.execute(db);
  await sql`create index asset_visible_hash on asset (hash text_pattern_ops) include (timestamp)
    where not is_trashed and not is_corrupted`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index asset_visible_hash`.execute(db);
  await sql`create index asset_visible_hash on asset (hash text_pattern_ops)
    where not is_trashed and not is_corrupted`.execute(db);
}
