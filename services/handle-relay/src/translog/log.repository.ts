import { sql, type Kysely, type Transaction } from 'kysely';
import { leafHash } from '../client/merkle.js';
import type { Database } from '../db/database.js';
import { appendLeaves, frontier, nodeKey, type NodeRef } from './merkle-tree.js';

/** A link to append: who it belongs to and its line. */
export interface NewLink {
  handle: string;
  seq: number;
  key: string;
  line: string;
}

/** The tree's size and root as stored. */
export interface TreeState {
  size: number;
  root: Uint8Array;
}

function bytes(value: Uint8Array): Buffer {
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

/** The stored hashes of some nodes, one indexed read, keyed by `nodeKey`. */
export async function readNodes(
  db: Kysely<Database>,
  refs: readonly NodeRef[],
): Promise<Map<string, Uint8Array>> {
  const nodes = new Map<string, Uint8Array>();
  if (refs.length === 0) return nodes;
  const unique = [...new Map(refs.map((r) => [nodeKey(r.level, r.idx), r])).values()];
  const wanted = sql.join(unique.map((r) => sql`(${r.level}::smallint, ${r.idx}::bigint)`));
  const rows = await sql<{ level: number; idx: number; hash: Uint8Array }>`
    select level, idx, hash from log_node where (level, idx) in (${wanted})`.execute(db);
  for (const row of rows.rows) nodes.set(nodeKey(Number(row.level), Number(row.idx)), row.hash);
  return nodes;
}

/**
 * Locks the tree state for the caller's transaction and returns the tree's size: every
 * instance appends in one order, the lock held to the commit. Take it before any other
 * row lock of the transaction (registrations and rotations all do), so none can deadlock.
 */
export async function lockTree(trx: Transaction<Database>): Promise<number> {
  const state = await sql<{ size: number }>`
    select size from log_state where id = 1 for update`.execute(trx);
  return Number(state.rows[0]!.size);
}

/**
 * Appends links to the log inside the caller's transaction, which holds the tree's lock
 * (`lockTree`, which gave `size`): numbers the links from `size`, stores them, every node
 * they complete and the new size and root.
 */
export async function appendLinks(
  trx: Transaction<Database>,
  size: number,
  links: readonly NewLink[],
): Promise<void> {
  if (links.length === 0) return;
  const nodes = await readNodes(trx, frontier(size));
  const leaves = links.map((l) => leafHash(l.line));
  const { added, root } = appendLeaves(size, leaves, nodes);
  await trx
    .insertInto('sigchain_link')
    .values(
      links.map((l, i) => ({
        idx: size + i,
        handle: l.handle,
        seq: l.seq,
        key: l.key,
        line: l.line,
        leaf_hash: bytes(leaves[i]!),
      })),
    )
    .execute();
  await trx
    .insertInto('log_node')
    .values(added.map((n) => ({ level: n.level, idx: n.idx, hash: bytes(n.hash) })))
    .execute();
  await trx
    .updateTable('log_state')
    .set({ size: size + links.length, root: bytes(root) })
    .where('id', '=', 1)
    .execute();
}

/** The tree's current size and root. */
export async function readTreeState(db: Kysely<Database>): Promise<TreeState> {
  const row = await db
    .selectFrom('log_state')
    .select(['size', 'root'])
    .where('id', '=', 1)
    .executeTakeFirstOrThrow();
  return { size: Number(row.size), root: row.root };
}

/** The log key recorded with the log (the first one it was signed by), if any. */
export async function readLogKey(db: Kysely<Database>): Promise<string | null> {
  const row = await db
    .selectFrom('log_state')
    .select('log_key')
    .where('id', '=', 1)
    .executeTakeFirstOrThrow();
  return row.log_key;
}

/** Records `key` as the log's key when none is recorded yet; returns the one recorded. */
export async function recordLogKey(db: Kysely<Database>, key: string): Promise<string> {
  await db
    .updateTable('log_state')
    .set({ log_key: key })
    .where('id', '=', 1)
    .where('log_key', 'is', null)
    .execute();
  return (await readLogKey(db)) ?? key;
}

/** The index of the leaf with this hash, if it is among the first `size`. */
export async function findLeaf(
  db: Kysely<Database>,
  hash: Uint8Array,
  size: number,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('sigchain_link')
    .select('idx')
    .where('leaf_hash', '=', bytes(hash))
    .where('idx', '<', size)
    .executeTakeFirst();
  return row ? Number(row.idx) : undefined;
}

/** The lines of leaves [start, end), ascending. */
export async function readEntries(
  db: Kysely<Database>,
  start: number,
  end: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom('sigchain_link')
    .select('line')
    .where('idx', '>=', start)
    .where('idx', '<', end)
    .orderBy('idx')
    .execute();
  return rows.map((r) => r.line);
}
