import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { appendLinks, lockTree } from '../translog/log.repository.js';
import type { HandleRow, NewHandleRow } from './handle.table.js';

/** The row of one handle (stored, folded form), if claimed. */
export async function findHandle(
  db: Kysely<Database>,
  handle: string,
): Promise<HandleRow | undefined> {
  return db.selectFrom('handle').selectAll().where('handle', '=', handle).executeTakeFirst();
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
    const size = await lockTree(trx);
    const row = await trx
      .insertInto('handle')
      .values(reg.row)
      .returningAll()
      .executeTakeFirstOrThrow();
    await appendLinks(trx, size, [eldestOf(reg)]);
    return row;
  });
}

/**
 * Inserts many new handles in one transaction, skipping rows whose handle or primary is
 * taken (by a stored row or an earlier row of the same statement), and appends the eldest
 * links of those stored to the log; returns the handles stored. `log` false (bench:identity's
 * baseline only) writes the handles alone, as before the log existed.
 */
export async function insertHandlesSkippingTaken(
  db: Kysely<Database>,
  regs: readonly NewRegistration[],
  log = true,
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
  return db.transaction().execute(async (trx) => {
    const size = await lockTree(trx);
    const stored = await trx
      .insertInto('handle')
      .values(regs.map((r) => r.row))
      .onConflict((oc) => oc.doNothing())
      .returning('handle')
      .execute();
    const handles = new Set(stored.map((r) => r.handle));
    await appendLinks(trx, size, regs.filter((r) => handles.has(r.row.handle)).map(eldestOf));
    return [...handles];
  });
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
