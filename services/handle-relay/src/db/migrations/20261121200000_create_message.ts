import { sql, type Kysely } from 'kysely';

/**
 * Relayed messages. `seq` is one global identity sequence (the inbox cursor); the
 * (recipient, seq) index serves inbox pages and stream replays, the created_at index the
 * hourly retention sweep. The envelope is kept as the exact JSON text that was measured.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('message')
    .addColumn('seq', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('recipient', 'text', (c) =>
      c.notNull().references('handle.handle').onDelete('cascade'),
    )
    .addColumn('envelope', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('message_recipient_seq_idx')
    .on('message')
    .columns(['recipient', 'seq'])
    .execute();
  await db.schema
    .createIndex('message_created_at_idx')
    .on('message')
    .column('created_at')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('message').execute();
}
