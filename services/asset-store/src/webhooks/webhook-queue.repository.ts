import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { AssetEventRow } from '../changes/change.table.js';
import type { WebhookAttemptRow, WebhookDeliveryRow } from './webhook.table.js';

/**
 * The queue's own bookkeeping (fan-out, leases, outcomes) commits without waiting for its
 * WAL flush: a crash of the database can lose only the last moments of it, and each loss
 * is safe: a fan-out is done again (the cursor is its own row, the queue takes no
 * duplicate), a lease is taken again, a delivered event is delivered again (at least
 * once). It no longer costs the disk a flush per delivery beside the ingests' commits.
 */
async function relaxed(trx: Kysely<Database>): Promise<void> {
  await sql`set local synchronous_commit = off`.execute(trx);
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
      await relaxed(trx);
      const result = await sql<{ taken: boolean; full: boolean }>`
        with w as (
          select id, types, cursor from webhook where id = ${id} for no key update skip locked
        ), ev as (
          -- The cursor as a value, so the walk starts at it on the positions' index (joined
          -- to w, it was a filter: every call walked the whole feed from its start).
          select e.pos, e.hash, e.type, e.at from asset_event e
          where e.pos > (select cursor from w) order by e.pos limit ${batch}
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

/** The instances holding leases that have not run out, other than `self`. */
export async function leaseOwners(
  db: Kysely<Database>,
  now: number,
  self: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom('webhook_delivery')
    .select('lease_owner')
    .distinct()
    .where('lease_until', '>=', now)
    .where('lease_owner', 'is not', null)
    .where('lease_owner', '!=', self)
    .execute();
  return rows.map((r) => r.lease_owner!);
}

/**
 * Frees the leases `owner` holds (an instance that is gone) that run out before
 * `leaseUntilBefore` (taken long enough ago); answers how many.
 */
export async function releaseLeases(
  db: Kysely<Database>,
  owner: string,
  leaseUntilBefore: number,
): Promise<number> {
  const result = await db
    .updateTable('webhook_delivery')
    .set({ lease_until: null, lease_owner: null })
    .where('lease_owner', '=', owner)
    .where('lease_until', '<', leaseUntilBefore)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Frees the leases `owner` (this instance) holds on deliveries it is not sending: those a
 * claim took whose answer the index never gave back, or whose outcome it could not record.
 * Without this they would wait out the whole lease after the index came back.
 */
export async function releaseOwnLeases(
  db: Kysely<Database>,
  owner: string,
  sending: readonly Pick<WebhookDeliveryRow, 'webhook_id' | 'pos'>[],
): Promise<number> {
  const result = await db
    .updateTable('webhook_delivery')
    .set({ lease_until: null, lease_owner: null })
    .where('lease_owner', '=', owner)
    .$if(sending.length > 0, (qb) =>
      qb.where((eb) =>
        eb.not(
          eb(
            eb.refTuple('webhook_id', 'pos'),
            'in',
            sending.map((d) => eb.tuple(d.webhook_id, d.pos)),
          ),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
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
  owner: string,
): Promise<ClaimedDelivery[]> {
  const claimed = await db.transaction().execute(async (trx) => {
    await relaxed(trx);
    return sql<WebhookDeliveryRow>`
    update webhook_delivery d set lease_until = ${now + leaseMs}, lease_owner = ${owner}
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
    returning d.*`.execute(trx);
  });
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

/** How one attempt ended: off the queue (`nextAt` null: delivered or given up), or tried again at `nextAt`. */
export interface Outcome {
  delivery: Pick<WebhookDeliveryRow, 'webhook_id' | 'pos'>;
  attempt: Attempt;
  nextAt: number | null;
}

/**
 * Records attempts that ended, in one transaction for all of them: each into the log, each
 * delivered (or given up) off the queue, each failed one due again at its `nextAt`.
 */
export async function recordOutcomes(
  db: Kysely<Database>,
  outcomes: readonly Outcome[],
): Promise<void> {
  if (outcomes.length === 0) return;
  const settled = outcomes.filter((o) => o.nextAt === null);
  const retried = outcomes.filter((o) => o.nextAt !== null);
  await db.transaction().execute(async (trx) => {
    await relaxed(trx);
    await trx
      .insertInto('webhook_attempt')
      .values(outcomes.map((o) => o.attempt))
      .execute();
    if (settled.length > 0) {
      await trx
        .deleteFrom('webhook_delivery')
        .where((eb) =>
          eb(
            eb.refTuple('webhook_id', 'pos'),
            'in',
            settled.map((o) => eb.tuple(o.delivery.webhook_id, o.delivery.pos)),
          ),
        )
        .execute();
    }
    // Failures are few (a receiver that fails fails each event once per backoff step).
    for (const o of retried) {
      await trx
        .updateTable('webhook_delivery')
        .set((eb) => ({
          attempts: eb('attempts', '+', 1),
          next_at: o.nextAt!,
          lease_until: null,
          lease_owner: null,
        }))
        .where('webhook_id', '=', o.delivery.webhook_id)
        .where('pos', '=', o.delivery.pos)
        .execute();
    }
  });
}

/**
 * When the next retry falls due (epoch ms), if any: the earliest `next_at` still ahead of
 * `now` of a delivery not leased. What is due already was just claimed, or waits behind a
 * delivery of the same asset in flight, whose end wakes the dispatcher (another
 * instance's, within a second). Read from the `next_at` index alone: an anti-join over the
 * whole queue on every turn cost PostgreSQL more than the deliveries while a backlog built.
 */
export async function nextDue(db: Kysely<Database>, now: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('webhook_delivery')
    .select((eb) => eb.fn.min('next_at').as('next'))
    .where('next_at', '>', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .executeTakeFirst();
  const next = row?.next;
  return next === null || next === undefined ? undefined : Number(next);
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
