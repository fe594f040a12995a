import { sql, type Kysely } from 'kysely';

/**
 * Each job records the instance running it, so a starting instance fails only the jobs of
 * instances that are gone (their presence lock is free), never those another live
 * instance on the same database is running. Rows from before have no owner: orphaned.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('job').addColumn('instance_id', 'uuid').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table job drop column instance_id`.execute(db);
}
