import { sql, type Kysely } from 'kysely';

/** Claimed handles; both the handle and its primary are unique (one handle per primary). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('handle')
    .addColumn('handle', 'text', (c) => c.primaryKey())
    .addColumn('primary_key', 'text', (c) => c.notNull().unique())
    .addColumn('registered_at', 'timestamptz', (c) => c.notNull())
    .addColumn('proofs', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('handle').execute();
}
