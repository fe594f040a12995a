import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { AssetEventRow } from '../changes/change.table.js';
import type { WebhookAttemptRow, WebhookDeliveryRow, WebhookRow } from './webhook.table.js';

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

/**
 * Moves up to `batch` events past each webhook's cursor into its queue (those of its types),
 * and the cursor past them, in one transaction per webhook; a webhook another instance is
 * fanning out is skipped (`NO KEY UPDATE`: the key-share locks of deliveries being recorded
 * do not block it). Returns `done` when every webhook was brought to the head, `more`
 * when a batch was full, `skipped` when a webhook was locked.
 */
export async function fanOut(
  db: Kysely<Database>,
  now: number,
  batch: number,
): Promise<'done' | 'more' | 'skipped'> {
  const behind = await db
    .selectFrom('webhook')
    .select('id')
    .where('cursor', '<', sql<number>`(select last from asset_event_head)`)
    .execute();
  let outcome: 'done' | 'more' | 'skipped' = 'done';
  for (const { id } of behind) {
    const step = await db.transaction().execute(async (trx) => {
      const result = await sql<{ taken: boolean; full: boolean }>`
        with w as (
          select id, types, cursor from webhook where id = ${id} for no key update skip locked
        ), ev as (
          select e.pos, e.hash, e.type, e.at from asset_event e, w
          where e.pos > w.cursor order by e.pos limit ${batch}
        ), ins as (
          insert into webhook_delivery (webhook_id, pos, hash, at, next_at)
          select w.id, ev.pos, ev.hash, ev.at, ${now} from ev, w
          where w.types is null or ev.type = any (w.types)
          on conflict do nothing
          returning 1
        ), moved as (
          update webhook set cursor = (select max(pos) from ev)
          where id = (select id from w) and exists (select 1 from ev)
          returning 1
        )
        select exists (select 1 from w) as taken, (select count(*) from ev) = ${batch} as full`.execute(
        trx,
      );
      const row = result.rows[0];
      if (!row?.taken) return 'skipped';
      return row.full ? 'more' : 'done';
    });
    if (step === 'more') outcome = 'more';
    else if (step === 'skipped' && outcome === 'done') outcome = 'skipped';
  }
  return outcome;
}

/** A delivery taken for sending, with its webhook and its event (null when pruned). */
export interface ClaimedDelivery extends WebhookDeliveryRow {
  url: string;
  secret: string;
  event: AssetEventRow | null;
}

/**
 * Takes up to `limit` due deliveries for `leaseMs`: each the earliest still owed of its
 * webhook and asset, so one asset's events go out one after another, in order.
 */
export async function claimDue(
  db: Kysely<Database>,
  now: number,
  leaseMs: number,
  limit: number,
): Promise<ClaimedDelivery[]> {
  const claimed = await sql<WebhookDeliveryRow>`
    update webhook_delivery d set lease_until = ${now + leaseMs}
    where (d.webhook_id, d.pos) in (
      select c.webhook_id, c.pos from webhook_delivery c
      where c.next_at <= ${now} and (c.lease_until is null or c.lease_until < ${now})
        and not exists (
          select 1 from webhook_delivery e
          where e.webhook_id = c.webhook_id and e.hash = c.hash and e.pos < c.pos
        )
      order by c.pos
      limit ${limit}
      for update skip locked
    )
    returning d.*`.execute(db);
  if (claimed.rows.length === 0) return [];
  const webhooks = new Map(
    (
      await db
        .selectFrom('webhook')
        .select(['id', 'url', 'secret'])
        .where('id', 'in', [...new Set(claimed.rows.map((r) => r.webhook_id))])
        .execute()
    ).map((w) => [w.id, w]),
  );
  const events = new Map(
    (
      await db
        .selectFrom('asset_event')
        .selectAll()
        .where(
          'pos',
          'in',
          claimed.rows.map((r) => r.pos),
        )
        .execute()
    ).map((e) => [Number(e.pos), e]),
  );
  return claimed.rows.flatMap((row) => {
    const webhook = webhooks.get(row.webhook_id);
    if (!webhook) return [];
    return [
      {
        ...row,
        url: webhook.url,
        secret: webhook.secret,
        event: events.get(Number(row.pos)) ?? null,
      },
    ];
  });
}

/** The attempt's record in the log. */
export type Attempt = Omit<WebhookAttemptRow, 'id'>;

/** Delivered or given up: off the queue, into the log. */
export async function settleDelivery(
  db: Kysely<Database>,
  delivery: Pick<WebhookDeliveryRow, 'webhook_id' | 'pos'>,
  attempt: Attempt,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('webhook_attempt').values(attempt).execute();
    await trx
      .deleteFrom('webhook_delivery')
      .where('webhook_id', '=', delivery.webhook_id)
      .where('pos', '=', delivery.pos)
      .execute();
  });
}

/** Failed: tried again at `nextAt`, and the attempt logged. */
export async function retryDelivery(
  db: Kysely<Database>,
  delivery: Pick<WebhookDeliveryRow, 'webhook_id' | 'pos'>,
  nextAt: number,
  attempt: Attempt,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('webhook_attempt').values(attempt).execute();
    await trx
      .updateTable('webhook_delivery')
      .set((eb) => ({ attempts: eb('attempts', '+', 1), next_at: nextAt, lease_until: null }))
      .where('webhook_id', '=', delivery.webhook_id)
      .where('pos', '=', delivery.pos)
      .execute();
  });
}

/** When the next delivery not taken falls due (epoch ms), if any is owed. */
export async function nextDue(db: Kysely<Database>): Promise<number | undefined> {
  const row = await db
    .selectFrom('webhook_delivery')
    .select((eb) => eb.fn.min('next_at').as('next'))
    .executeTakeFirst();
  return row?.next === null || row?.next === undefined ? undefined : Number(row.next);
}

/** The retry backlog and the oldest event still owed to any webhook (queued or not yet fanned out). */
export async function backlog(
  db: Kysely<Database>,
): Promise<{ retrying: number; oldestAt: number | null }> {
  const result = await sql<{ retrying: number; oldest_at: number | null }>`
    select
      (select count(*) from webhook_delivery where attempts > 0)::int as retrying,
      least(
        (select min(at) from webhook_delivery),
        (select min(e.at) from asset_event e
          where e.pos > (select min(cursor) from webhook) and e.pos is not null)
      ) as oldest_at`.execute(db);
  const row = result.rows[0];
  return {
    retrying: row?.retrying ?? 0,
    oldestAt:
      row?.oldest_at === null || row?.oldest_at === undefined ? null : Number(row.oldest_at),
  };
}

/** Deletes log entries older than `cutoffMs`. */
export async function pruneAttempts(db: Kysely<Database>, cutoffMs: number): Promise<number> {
  const result = await db
    .deleteFrom('webhook_attempt')
    .where('at', '<', cutoffMs)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
