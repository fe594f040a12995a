import { sql, type Kysely } from 'kysely';

/**
 * Issue 45: a delivery leased by an instance that died (kill -9) waited for its lease to
 * run out (a minute) before any instance tried it again. Each lease now names the instance
 * holding it, so a starting instance, and every live one from time to time, frees the
 * leases of instances that are gone (their presence lock is free).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_delivery').addColumn('lease_owner', 'uuid').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table webhook_delivery drop column lease_owner`.execute(db);
}
