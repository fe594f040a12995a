import { sql, type Kysely } from 'kysely';

/**
 * The plain SHA-256 of each asset's content (RFC 9530 `Repr-Digest`, `search?sha256=`).
 * Rows indexed before it have none until a rebuild reads the attribute or recomputes it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table asset add column content_sha256 text`.execute(db);
  await sql`create index asset_content_sha256 on asset (content_sha256, timestamp)
    where content_sha256 is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index asset_content_sha256`.execute(db);
  await sql`alter table asset drop column content_sha256`.execute(db);
}
