import { preparedAs } from '@svc/database';
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
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

/**
 * The stored hashes of some nodes, one indexed read (a prepared statement: the nodes travel
 * as arrays), keyed by `nodeKey`.
 */
export async function readNodes(
  db: Kysely<Database>,
  refs: readonly NodeRef[],
): Promise<Map<string, Uint8Array>> {
  const nodes = new Map<string, Uint8Array>();
  if (refs.length === 0) return nodes;
  const unique = [...new Map(refs.map((r) => [nodeKey(r.level, r.idx), r])).values()];
  const rows = await sql<{ level: number; idx: number; hash: Uint8Array }>`${preparedAs(
    'log_nodes',
  )}
    select n.level, n.idx, n.hash
    from unnest(${unique.map((r) => r.level)}::smallint[], ${unique.map((r) => r.idx)}::bigint[])
      as w(level, idx)
    join log_node as n on n.level = w.level and n.idx = w.idx`.execute(db);
  for (const row of rows.rows) nodes.set(nodeKey(Number(row.level), Number(row.idx)), row.hash);
  return nodes;
}

/** The tree as an append finds it under the lock: its size and its frontier's nodes. */
export interface LockedTree {
  size: number;
  /** The tree's root hash: with the size, what an append checks it builds on. */
  root: Uint8Array;
  /** The complete subtrees of the tree (`frontier(size)`), keyed by `nodeKey`. */
  nodes: Map<string, Uint8Array>;
}

/**
 * Locks the tree state for the caller's transaction and returns the tree's size and its
 * frontier nodes, in one round trip: every instance appends in one order, the lock held to
 * the commit. Take it before any other row lock of the transaction (registrations and
 * rotations all do), so none can deadlock. The frontier of a tree of n leaves is one
 * node per set bit b of n: level b, index (n >> b) - 1. Uncontended, one round trip.
 */
export async function lockTree(trx: Transaction<Database>): Promise<LockedTree> {
  const tree = await frontierQuery(trx, 'log_tree_locked', sql`for update`);
  // Having waited for the lock, the query sees the new size but, from its snapshot, not the
  // nodes the transaction before it wrote: a statement of its own reads them.
  const missing = frontier(tree.size).filter((n) => !tree.nodes.has(nodeKey(n.level, n.idx)));
  if (missing.length > 0) for (const [k, h] of await readNodes(trx, missing)) tree.nodes.set(k, h);
  return tree;
}

/** The tree's size and its frontier's nodes, read in one snapshot without a lock. */
export async function readTree(db: Kysely<Database>): Promise<LockedTree> {
  return frontierQuery(db, 'log_tree', sql``);
}

async function frontierQuery(
  db: Kysely<Database>,
  name: string,
  lock: RawBuilder<unknown>,
): Promise<LockedTree> {
  const rows = await sql<{
    size: number;
    root: Uint8Array;
    level: number | null;
    idx: number | null;
    hash: Uint8Array | null;
  }>`${preparedAs(name)}
    select s.size, s.root, n.level, n.idx, n.hash
    from (select size, root from log_state where id = 1 ${lock}) as s
    left join lateral (
      select level, idx, hash from log_node
      where (level, idx) in (
        select b::smallint, (s.size >> b) - 1 from generate_series(0, 62) as b
        where (s.size >> b) & 1 = 1
      )
    ) as n on true`.execute(db);
  const size = Number(rows.rows[0]!.size);
  const nodes = new Map<string, Uint8Array>();
  for (const r of rows.rows) {
    if (r.hash) nodes.set(nodeKey(Number(r.level), Number(r.idx)), r.hash);
  }
  return { size, root: rows.rows[0]!.root, nodes };
}

/** Links appended to a tree: the rows to write, and the tree after them. */
export interface PlannedAppend {
  /** The tree it builds on. */
  from: number;
  fromRoot: Uint8Array;
  links: readonly NewLink[];
  leaves: Uint8Array[];
  added: (NodeRef & { hash: Uint8Array })[];
  root: Uint8Array;
  /** The tree once these are in: its size and frontier nodes. */
  next: LockedTree;
}

/** Plans appending `links` to `tree` (which it leaves as it is). */
export function planAppend(tree: LockedTree, links: readonly NewLink[]): PlannedAppend {
  const nodes = new Map(tree.nodes);
  const leaves = links.map((l) => leafHash(l.line));
  const { added, root } = appendLeaves(tree.size, leaves, nodes);
  const size = tree.size + links.length;
  const next = new Map<string, Uint8Array>();
  for (const ref of frontier(size)) {
    const key = nodeKey(ref.level, ref.idx);
    next.set(key, nodes.get(key)!);
  }
  return {
    from: tree.size,
    fromRoot: tree.root,
    links,
    leaves,
    added,
    root,
    next: { size, root, nodes: next },
  };
}

/**
 * An append made without holding the tree's lock, as common table expressions for one
 * statement: `log_size` moves the tree from the plan's size and root (a row) or, when the
 * tree moved on meanwhile, leaves it (no row; the root, not the size alone, says it is the
 * same tree: a plan may build on another batch's that lost its place); the links and nodes are written only with the move. The
 * update's row lock orders it with every other append to the commit.
 */
export function casAppendWrites(plan: PlannedAppend): RawBuilder<unknown> {
  const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
  const { links, added } = plan;
  return sql`log_size as (
      update log_state set size = ${plan.from + links.length}, root = decode(${hex(plan.root)}, 'hex')
      where id = 1 and size = ${plan.from} and root = decode(${hex(plan.fromRoot)}, 'hex')
      returning size
    ),
    log_links as (
      insert into sigchain_link (idx, handle, seq, key, line, leaf_hash)
      select plan.from_idx + t.n - 1, t.handle, t.seq, t.key, t.line, decode(t.leaf, 'hex')
      from (select ${plan.from}::bigint as from_idx) as plan,
        unnest(${links.map((l) => l.handle)}::text[], ${links.map((l) => l.seq)}::int[],
          ${links.map((l) => l.key)}::text[], ${links.map((l) => l.line)}::text[],
          ${plan.leaves.map(hex)}::text[]) with ordinality as t(handle, seq, key, line, leaf, n)
      where exists (select 1 from log_size)
    ),
    log_nodes as (
      insert into log_node (level, idx, hash)
      select t.level, t.idx, decode(t.hash, 'hex')
      from unnest(${added.map((n) => n.level)}::smallint[], ${added.map((n) => n.idx)}::bigint[],
        ${added.map((n) => hex(n.hash))}::text[]) as t(level, idx, hash)
      where exists (select 1 from log_size)
    )`;
}

/**
 * The writes that append `links` to a tree locked by `lockTree`, as common table
 * expressions (`log_links`, `log_nodes`, `log_size`) for one statement, which may write
 * other tables beside them: the links numbered from the tree's size, every node they
 * complete, the new size and root.
 */
export function appendWrites(
  trx: Transaction<Database>,
  tree: LockedTree,
  links: readonly NewLink[],
): RawBuilder<unknown> {
  const nodes = new Map(tree.nodes);
  const leaves = links.map((l) => leafHash(l.line));
  const { added, root } = appendLeaves(tree.size, leaves, nodes);
  const { size } = tree;
  const linkRows = trx.insertInto('sigchain_link').values(
    links.map((l, i) => ({
      idx: size + i,
      handle: l.handle,
      seq: l.seq,
      key: l.key,
      line: l.line,
      leaf_hash: bytes(leaves[i]!),
    })),
  );
  const nodeRows = trx
    .insertInto('log_node')
    .values(added.map((n) => ({ level: n.level, idx: n.idx, hash: bytes(n.hash) })));
  const state = trx
    .updateTable('log_state')
    .set({ size: size + links.length, root: bytes(root) })
    .where('id', '=', 1);
  return sql`log_links as (${linkRows}), log_nodes as (${nodeRows}), log_size as (${state})`;
}

/**
 * Appends links to the log inside the caller's transaction, which holds the tree's lock
 * (`lockTree`), in one statement.
 */
export async function appendLinks(
  trx: Transaction<Database>,
  tree: LockedTree,
  links: readonly NewLink[],
): Promise<void> {
  if (links.length === 0) return;
  await sql`with ${appendWrites(trx, tree, links)} select 1`.execute(trx);
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

/**
 * The index of the leaf with this hash, if it is among the first `size`, and in the same
 * round trip the stored siblings of its path: at each level b, the complete subtree beside
 * the one holding the leaf (level b, index (m >> b) xor 1), where it starts below `size`.
 * They are most of an inclusion proof; the rest lies on the tree's right edge.
 */
export async function findLeafWithSiblings(
  db: Kysely<Database>,
  hash: Uint8Array,
  size: number,
): Promise<{ index: number; nodes: Map<string, Uint8Array> } | undefined> {
  const rows = await sql<{
    leaf: number;
    level: number | null;
    idx: number | null;
    hash: Uint8Array | null;
  }>`${preparedAs('log_leaf_with_siblings')}
    select l.idx as leaf, n.level, n.idx, n.hash
    from (
      select idx from sigchain_link where leaf_hash = ${bytes(hash)} and idx < ${size} limit 1
    ) as l
    left join lateral (
      select level, idx, hash from log_node
      where (level, idx) in (
        select b::smallint, (l.idx >> b) # 1 from generate_series(0, 62) as b
        where ((l.idx >> b) # 1) << b < ${size}
      )
    ) as n on true`.execute(db);
  if (rows.rows.length === 0) return undefined;
  const nodes = new Map<string, Uint8Array>();
  for (const r of rows.rows) {
    if (r.hash) nodes.set(nodeKey(Number(r.level), Number(r.idx)), r.hash);
  }
  return { index: Number(rows.rows[0]!.leaf), nodes };
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
