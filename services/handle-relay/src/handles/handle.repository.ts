import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
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

/** Inserts a new handle; unique violations surface to the caller to map. */
export async function insertHandle(db: Kysely<Database>, row: NewHandleRow): Promise<HandleRow> {
  return db.insertInto('handle').values(row).returningAll().executeTakeFirstOrThrow();
}

/**
 * Inserts many new handles in one statement, skipping rows whose handle or primary is
 * taken (by a stored row or an earlier row of the same statement); returns the handles
 * stored.
 */
export async function insertHandlesSkippingTaken(
  db: Kysely<Database>,
  rows: readonly NewHandleRow[],
): Promise<string[]> {
  const stored = await db
    .insertInto('handle')
    .values([...rows])
    .onConflict((oc) => oc.doNothing())
    .returning('handle')
    .execute();
  return stored.map((r) => r.handle);
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
