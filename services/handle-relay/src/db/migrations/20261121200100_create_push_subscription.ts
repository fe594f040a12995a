import { sql, type Kysely } from 'kysely';

/**
 * Web Push subscriptions, keyed by endpoint: a browser endpoint belongs to one device, so
 * subscribing it again (even for another handle) updates the one row.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('push_subscription')
    .addColumn('endpoint', 'text', (c) => c.primaryKey())
    .addColumn('handle', 'text', (c) => c.notNull().references('handle.handle').onDelete('cascade'))
    .addColumn('p256dh', 'text', (c) => c.notNull())
    .addColumn('auth', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('push_subscription_handle_idx')
    .on('push_subscription')
    .column('handle')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('push_subscription').execute();
}
