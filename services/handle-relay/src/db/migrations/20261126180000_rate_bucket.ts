import { sql, type Kysely } from 'kysely';

/**
 * Token buckets per route and client address, shared by every instance on one server
 * (the rate limit on `POST /v1/messages` and `POST /v1/register`). Unlogged: a bucket is
 * minutes of state, not worth a WAL write per request; a server crash forgets them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('rate_bucket')
    .modifyFront(sql`unlogged`)
    .addColumn('route', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('tokens', 'double precision', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('allowed', 'boolean', (c) => c.notNull())
    .addPrimaryKeyConstraint('rate_bucket_pk', ['route', 'address'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('rate_bucket').execute();
}
