import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { NewPushSubscriptionRow, PushSubscriptionRow } from './push-subscription.table.js';

/** Stores a subscription, or updates the one with the same endpoint (it may change owner). */
export async function upsertSubscription(
  db: Kysely<Database>,
  row: NewPushSubscriptionRow,
): Promise<void> {
  await db
    .insertInto('push_subscription')
    .values(row)
    .onConflict((oc) =>
      oc.column('endpoint').doUpdateSet({ handle: row.handle, p256dh: row.p256dh, auth: row.auth }),
    )
    .execute();
}

/** Removes one handle's subscription by endpoint; true when a row went. */
export async function deleteSubscription(
  db: Kysely<Database>,
  handle: string,
  endpoint: string,
): Promise<boolean> {
  const res = await db
    .deleteFrom('push_subscription')
    .where('handle', '=', handle)
    .where('endpoint', '=', endpoint)
    .executeTakeFirst();
  return res.numDeletedRows > 0n;
}

/** Removes a subscription the push service called gone (404/410). */
export async function deleteSubscriptionByEndpoint(
  db: Kysely<Database>,
  endpoint: string,
): Promise<void> {
  await db.deleteFrom('push_subscription').where('endpoint', '=', endpoint).execute();
}

/** Every subscription of one handle. */
export async function listSubscriptions(
  db: Kysely<Database>,
  handle: string,
): Promise<PushSubscriptionRow[]> {
  return db.selectFrom('push_subscription').selectAll().where('handle', '=', handle).execute();
}
