import type { Generated, Insertable, Selectable } from 'kysely';

/** One Web Push subscription of a handle, keyed by its endpoint. */
export interface PushSubscriptionTable {
  endpoint: string;
  handle: string;
  p256dh: string;
  auth: string;
  created_at: Generated<Date>;
}

/** A subscription row as read. */
export type PushSubscriptionRow = Selectable<PushSubscriptionTable>;
/** A subscription row as inserted. */
export type NewPushSubscriptionRow = Insertable<PushSubscriptionTable>;
