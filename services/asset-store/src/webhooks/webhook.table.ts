import type { Generated, Selectable } from 'kysely';

/** One subscription. */
export interface WebhookTable {
  id: string;
  url: string;
  /** The event types delivered; null: all. */
  types: string[] | null;
  /** `whsec_<base64 of 32 random bytes>` (Standard Webhooks). */
  secret: string;
  created_at: number;
  /** The last feed position fanned out to its queue. */
  cursor: number;
}

/** One delivery still owed: a webhook and an event. */
export interface WebhookDeliveryTable {
  webhook_id: string;
  pos: number;
  hash: string;
  /** When the event happened (epoch ms): the retry window and the oldest-age gauge start here. */
  at: number;
  attempts: Generated<number>;
  next_at: number;
  /** Taken by an instance until then (epoch ms). */
  lease_until: number | null;
  /** The instance holding the lease (its presence id). */
  lease_owner: string | null;
}

/** One attempt, for `GET /admin/webhooks/{id}/deliveries`. */
export interface WebhookAttemptTable {
  id: Generated<number>;
  webhook_id: string;
  event_id: number;
  status: number | null;
  error: string | null;
  at: number;
  duration_ms: number;
}

export type WebhookRow = Selectable<WebhookTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveryTable>;
export type WebhookAttemptRow = Selectable<WebhookAttemptTable>;
