import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import type { SigchainLinkRow } from '../translog/log.tables.js';

/** The lines of the chain holding `key` (any key the handle ever had), ascending by seq. */
export async function chainByKey(db: Kysely<Database>, key: string): Promise<string[]> {
  const rows = await db
    .selectFrom('sigchain_link')
    .select('line')
    .where('handle', '=', (eb) =>
      eb.selectFrom('sigchain_link').select('handle').where('key', '=', key).limit(1),
    )
    .orderBy('seq')
    .execute();
  return rows.map((r) => r.line);
}

/** The last link of a handle's chain, if any. */
export async function lastLink(
  db: Kysely<Database>,
  handle: string,
): Promise<SigchainLinkRow | undefined> {
  return db
    .selectFrom('sigchain_link')
    .selectAll()
    .where('handle', '=', handle)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Moves a handle to its new key (the caller holds the tree's lock); false when absent. */
export async function setPrimary(
  trx: Transaction<Database>,
  handle: string,
  primary: string,
): Promise<boolean> {
  const res = await trx
    .updateTable('handle')
    .set({ primary_key: primary })
    .where('handle', '=', handle)
    .executeTakeFirst();
  return res.numUpdatedRows > 0n;
}

/** The NOTIFY channel that tells every instance a handle's key changed. */
export const ROTATION_CHANNEL = 'handle_relay_rotations';

/** Rings the other instances at commit: `<handle> <old key>`. */
export async function notifyRotation(
  trx: Transaction<Database>,
  handle: string,
  oldKey: string,
): Promise<void> {
  await sql`select pg_notify(${ROTATION_CHANNEL}, ${`${handle} ${oldKey}`})`.execute(trx);
}
