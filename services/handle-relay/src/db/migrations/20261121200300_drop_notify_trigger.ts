import { sql, type Kysely } from 'kysely';

/**
 * Removes the insert trigger's NOTIFY: a NOTIFY inside the inserting transaction holds
 * PostgreSQL's global notify lock through the commit's WAL flush, which serialised every
 * send. The relay now notifies right after the commit, under the recipient's lock.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`drop trigger if exists message_notify on message`.execute(db);
  await sql`drop function if exists notify_message()`.execute(db);
}

export async function down(): Promise<void> {
  // The trigger is not restored: 20261121200200 recreates it when migrating up from scratch.
}
