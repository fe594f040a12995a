import { sql, type Kysely } from 'kysely';

/**
 * Signature chains and the transparency log (CONTRACT.md, "signature chains, key rotation,
 * transparency log"). `sigchain_link` holds every link, numbered by its leaf index in the
 * log; `log_node` every complete subtree's hash (level 0: the leaves), so a proof reads
 * O(log n) rows by primary key; `log_state` the tree's size and root, one row, locked by
 * every append so instances append in one order.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sigchain_link')
    .addColumn('idx', 'bigint', (c) => c.notNull().primaryKey())
    .addColumn('handle', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('line', 'text', (c) => c.notNull())
    .addColumn('leaf_hash', 'bytea', (c) => c.notNull())
    .addUniqueConstraint('sigchain_link_handle_seq', ['handle', 'seq'])
    .execute();
  await db.schema.createIndex('sigchain_link_key').on('sigchain_link').column('key').execute();
  await db.schema
    .createIndex('sigchain_link_leaf_hash')
    .on('sigchain_link')
    .column('leaf_hash')
    .execute();
  await db.schema
    .createTable('log_node')
    .addColumn('level', 'smallint', (c) => c.notNull())
    .addColumn('idx', 'bigint', (c) => c.notNull())
    .addColumn('hash', 'bytea', (c) => c.notNull())
    .addPrimaryKeyConstraint('log_node_pk', ['level', 'idx'])
    .execute();
  await db.schema
    .createTable('log_state')
    .addColumn('id', 'smallint', (c) =>
      c
        .notNull()
        .primaryKey()
        .check(sql`id = 1`),
    )
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('root', 'bytea', (c) => c.notNull())
    .addColumn('log_key', 'text')
    .execute();
  await sql`insert into log_state (id, size, root) values (1, 0, sha256(''::bytea))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('log_state').execute();
  await db.schema.dropTable('log_node').execute();
  await db.schema.dropTable('sigchain_link').execute();
}
