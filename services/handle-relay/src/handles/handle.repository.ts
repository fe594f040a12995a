import { isUniqueViolation, preparedAs } from '@svc/database';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import {
  appendLinks,
  casAppendWrites,
  lockTree,
  planAppend,
  readTree,
  type LockedTree,
  type PlannedAppend,
} from '../translog/log.repository.js';
import { SIGCHAIN_LINK_HANDLE_SEQ } from '../translog/log.tables.js';
import {
  HANDLE_PKEY,
  HANDLE_PRIMARY_UNIQUE,
  type HandleRow,
  type NewHandleRow,
} from './handle.table.js';

/** The row of one handle (stored, folded form), if claimed. */
export async function findHandle(
  db: Kysely<Database>,
  handle: string,
): Promise<HandleRow | undefined> {
  return db.selectFrom('handle').selectAll().where('handle', '=', handle).executeTakeFirst();
}

/** The key each of these handles holds now; a handle nobody claimed is absent. */
export async function primaryKeysOf(
  db: Kysely<Database>,
  handles: readonly string[],
): Promise<Map<string, string>> {
  if (handles.length === 0) return new Map();
  const rows = await db
    .selectFrom('handle')
    .select(['handle', 'primary_key'])
    .where('handle', 'in', handles)
    .execute();
  return new Map(rows.map((r) => [r.handle, r.primary_key]));
}

/** The row owned by one primary (`ed25519:<lowercase hex>`), if any. */
export async function findByPrimary(
  db: Kysely<Database>,
  primary: string,
): Promise<HandleRow | undefined> {
  return db.selectFrom('handle').selectAll().where('primary_key', '=', primary).executeTakeFirst();
}

/** A new handle and the line of its eldest link. */
export interface NewRegistration {
  row: NewHandleRow;
  eldestLine: string;
}

function eldestOf(r: NewRegistration) {
  return { handle: r.row.handle, seq: 1, key: r.row.primary_key, line: r.eldestLine };
}

/**
 * Inserts a new handle and appends its eldest link to the log, in one transaction; unique
 * violations surface to the caller to map.
 */
export async function insertHandle(
  db: Kysely<Database>,
  reg: NewRegistration,
  log = true,
): Promise<HandleRow> {
  if (!log) return db.insertInto('handle').values(reg.row).returningAll().executeTakeFirstOrThrow();
  return db.transaction().execute(async (trx) => {
    const tree = await lockTree(trx);
    const row = await trx
      .insertInto('handle')
      .values(reg.row)
      .returningAll()
      .executeTakeFirstOrThrow();
    await appendLinks(trx, tree, [eldestOf(reg)]);
    return row;
  });
}

/**
 * Inserts many new handles, skipping rows whose handle or primary is taken (by a stored row
 * or an earlier row of the same batch), and appends the eldest links of those stored to the
 * log, atomically; returns the handles stored. All rows in one statement when none is taken
 * (`insertAllWithLinks`), else in steps under the tree's lock. `log` false (bench:identity's
 * baseline only) writes the handles alone, as before the log existed.
 */
export async function insertHandlesSkippingTaken(
  db: Kysely<Database>,
  regs: readonly NewRegistration[],
  log = true,
  tip: TreeTip = { current: undefined },
): Promise<string[]> {
  if (!log) {
    const stored = await db
      .insertInto('handle')
      .values(regs.map((r) => r.row))
      .onConflict((oc) => oc.doNothing())
      .returning('handle')
      .execute();
    return stored.map((r) => r.handle);
  }
  const all = await insertAllWithLinks(db, regs, tip);
  if (all) return all;
  // A row was taken: the batch goes in steps under the tree's lock, skipping it.
  return db.transaction().execute(async (trx) => {
    const tree = await lockTree(trx);
    const stored = await trx
      .insertInto('handle')
      .values(regs.map((r) => r.row))
      .onConflict((oc) => oc.doNothing())
      .returning('handle')
      .execute();
    const handles = new Set(stored.map((r) => r.handle));
    await appendLinks(trx, tree, regs.filter((r) => handles.has(r.row.handle)).map(eldestOf));
    return [...handles];
  });
}

/**
 * Stores every row of a batch and their eldest links in one statement, its own transaction
 * (one round trip): the append is planned on the tree as `tip` says the batch before left
 * it (or as read now) and written only if the tree is exactly that (size and root) when the
 * statement takes the tree's row, whose lock orders it with every other append to its
 * commit; no round trip happens under that lock. `tip` then holds the tree after this batch,
 * so the next batch builds on it while this one is under way. Undefined when a row is taken
 * (nothing written) or the tree kept moving: the caller then writes in steps.
 */
async function insertAllWithLinks(
  db: Kysely<Database>,
  regs: readonly NewRegistration[],
  tip: TreeTip,
): Promise<string[] | undefined> {
  let settle: (stored: boolean) => void = () => undefined;
  const settled = new Promise<boolean>((resolve) => (settle = resolve));
  const links = regs.map(eldestOf);
  let before = tip.current;
  let plan = planAppend(before?.tree ?? (await readTree(db)), links);
  tip.current = { tree: plan.next, settled };
  const giveUp = () => {
    if (tip.current?.settled === settled) tip.current = undefined;
    settle(false);
    return undefined;
  };
  try {
    for (let attempt = 0; attempt < 4; attempt++) {
      if (await writeAllWithLinks(db, regs, plan)) {
        settle(true);
        return regs.map((r) => r.row.handle);
      }
      // The tree is not what the plan built on. When the batch before this one was still on
      // its way (its statement came second), the same plan holds once that one is in.
      if (before && (await before.settled)) {
        before = undefined;
        continue;
      }
      before = undefined;
      plan = planAppend(await readTree(db), links);
      tip.current = { tree: plan.next, settled };
    }
    return giveUp();
  } catch (err) {
    giveUp();
    if (
      isUniqueViolation(err, HANDLE_PKEY) ||
      isUniqueViolation(err, HANDLE_PRIMARY_UNIQUE) ||
      isUniqueViolation(err, SIGCHAIN_LINK_HANDLE_SEQ)
    ) {
      return undefined;
    }
    throw err;
  }
}

/** The one statement of `insertAllWithLinks`; false when the tree was not as planned. */
async function writeAllWithLinks(
  db: Kysely<Database>,
  regs: readonly NewRegistration[],
  plan: PlannedAppend,
): Promise<boolean> {
  const rows = regs.map((r) => r.row);
  // No ON CONFLICT: a taken handle or key fails the whole statement, which writes nothing.
  const res = await sql<{ moved: number }>`${preparedAs('register_batch_logged')}
    with ${casAppendWrites(plan)},
    stored as (
      insert into handle (handle, primary_key, registered_at, proofs)
      select t.handle, t.primary_key, t.registered_at,
        array(select jsonb_array_elements_text(t.proofs))
      from unnest(${rows.map((r) => r.handle)}::text[], ${rows.map((r) => r.primary_key)}::text[],
        ${rows.map((r) => new Date(r.registered_at).toISOString())}::timestamptz[],
        ${rows.map((r) => JSON.stringify(r.proofs ?? []))}::jsonb[])
        as t(handle, primary_key, registered_at, proofs)
      where exists (select 1 from log_size)
    )
    select count(*)::int as moved from log_size`.execute(db);
  return res.rows[0]!.moved === 1;
}

/**
 * The log's tree as this instance's batched writer last planned it, and whether the batch
 * that plan belongs to went in (resolved when it is settled).
 */
export interface TreeTip {
  current: { tree: LockedTree; settled: Promise<boolean> } | undefined;
}

/** Replaces the proofs of one handle; returns whether a row was updated. */
export async function setProofs(
  db: Kysely<Database>,
  handle: string,
  proofs: readonly string[],
): Promise<boolean> {
  const res = await db
    .updateTable('handle')
    .set({ proofs: [...proofs] })
    .where('handle', '=', handle)
    .executeTakeFirst();
  return res.numUpdatedRows > 0n;
}
