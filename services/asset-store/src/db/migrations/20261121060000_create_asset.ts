import { sql, type Kysely } from 'kysely';

/** The asset index: one row per file, with the indexes list and search filter on. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('asset')
    .addColumn('hash', 'text', (c) => c.primaryKey().check(sql`hash ~ '^[0-9a-f]{64}$'`))
    .addColumn('timestamp', 'bigint', (c) => c.notNull().unique())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('application', 'text')
    .addColumn('user', 'text')
    .addColumn('tags', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn('description', 'text')
    .addColumn('human_filename', 'text')
    .addColumn('human_path', 'text')
    .addColumn('is_trashed', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('is_corrupted', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('path', 'text', (c) => c.notNull().unique())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('indexed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index asset_tags_gin on asset using gin (tags)`.execute(db);
  await sql`create index asset_hash_prefix on asset (hash text_pattern_ops)`.execute(db);
  await db.schema
    .createIndex('asset_application_ts')
    .on('asset')
    .columns(['application', 'timestamp'])
    .execute();
  await db.schema.createIndex('asset_user_ts').on('asset').columns(['user', 'timestamp']).execute();
  await db.schema
    .createIndex('asset_mime_ts')
    .on('asset')
    .columns(['mime_type', 'timestamp'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('asset').execute();
}
