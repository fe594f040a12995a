import { sql, type Kysely } from 'kysely';

const VISIBLE = sql`not is_trashed and not is_corrupted`;

/**
 * List and search hide trashed and corrupted assets by default. These partial indexes hold
 * only the visible rows in timestamp order, per filter column, so the default page, its
 * `offset_time` cursor and its count never visit hidden rows and never sort.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index asset_visible_ts on asset (timestamp) where ${VISIBLE}`.execute(db);
  for (const column of ['application', 'user', 'mime_type']) {
    await sql`create index ${sql.id(`asset_visible_${column}_ts`)} on asset (${sql.id(column)}, timestamp) where ${VISIBLE}`.execute(
      db,
    );
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['application', 'user', 'mime_type']) {
    await sql`drop index ${sql.id(`asset_visible_${column}_ts`)}`.execute(db);
  }
  await sql`drop index asset_visible_ts`.execute(db);
}
