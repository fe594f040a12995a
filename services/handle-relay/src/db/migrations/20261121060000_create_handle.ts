import { sql, type Kysely } from 'kysely';

/**
 * Claimed handles. Both the handle and its primary are unique (one handle per primary);
 * the constraints are named so the service can tell the two 409s apart.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('handle')
    .addColumn('handle', 'text', (c) => c.notNull())
    .addColumn('primary_key', 'text', (c) => c.notNull())
    .addColumn('registered_at', 'timestamptz', (c) => c.notNull())
    .addColumn('proofs', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addPrimaryKeyConstraint('handle_pkey', ['handle'])
    .addUniqueConstraint('handle_primary_key_unique', ['primary_key'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('handle').execute();
}
