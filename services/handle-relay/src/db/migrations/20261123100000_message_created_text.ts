import { sql, type Kysely } from 'kysely';

/**
 * A message's `created_at` also as the text clients get (RFC 3339 UTC, milliseconds), written
 * once at insert. Inbox pages are JSON text assembled in SQL, and formatting the timestamp
 * with `to_char` was up to a quarter of a 100-message page's cost in Postgres. Rows stored
 * before this migration get the same text from their `created_at`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('message').addColumn('created_text', 'text').execute();
  await sql`update message
    set created_text = to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`.execute(
    db,
  );
  await db.schema
    .alterTable('message')
    .alterColumn('created_text', (c) => c.setNotNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('message').dropColumn('created_text').execute();
}
