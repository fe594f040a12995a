import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { WebhookAttemptRow, WebhookRow } from './webhook.table.js';

/** Saves a new webhook, its cursor at the feed's head (only later events are delivered). */
export async function insertWebhook(
  db: Kysely<Database>,
  row: Omit<WebhookRow, 'cursor'>,
): Promise<void> {
  await db
    .insertInto('webhook')
    .values({
      ...row,
      cursor: sql<number>`(select last from asset_event_head)`,
    })
    .execute();
}

/** Whether any webhook exists. */
export async function hasWebhooks(db: Kysely<Database>): Promise<boolean> {
  return (await db.selectFrom('webhook').select('id').limit(1).executeTakeFirst()) !== undefined;
}

/** Every webhook, oldest first. */
export async function listWebhooks(db: Kysely<Database>): Promise<WebhookRow[]> {
  return db.selectFrom('webhook').selectAll().orderBy('created_at').orderBy('id').execute();
}

export async function findWebhook(
  db: Kysely<Database>,
  id: string,
): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhook').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Deletes the webhook with its queue and log; false when there was none. */
export async function deleteWebhook(db: Kysely<Database>, id: string): Promise<boolean> {
  const result = await db.deleteFrom('webhook').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The webhook's latest attempts, newest first. */
export async function recentAttempts(
  db: Kysely<Database>,
  webhookId: string,
  limit: number,
): Promise<WebhookAttemptRow[]> {
  return db
    .selectFrom('webhook_attempt')
    .selectAll()
    .where('webhook_id', '=', webhookId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** Deletes log entries older than `cutoffMs`. */
export async function pruneAttempts(db: Kysely<Database>, cutoffMs: number): Promise<number> {
  const result = await db
    .deleteFrom('webhook_attempt')
    .where('at', '<', cutoffMs)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
