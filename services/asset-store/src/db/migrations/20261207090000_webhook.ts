import { sql, type Kysely } from 'kysely';

/**
 * Webhooks (issue 45): the subscriptions, the queue of deliveries still owed (one row per
 * webhook and event, deleted once delivered or given up) and the log of attempts.
 * `cursor` is the last feed position fanned out to the webhook's queue; a new webhook
 * starts at the feed's head.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table webhook (
      id uuid primary key,
      url text not null,
      types text[],
      secret text not null,
      created_at bigint not null,
      cursor bigint not null
    )`.execute(db);
  await sql`
    create table webhook_delivery (
      webhook_id uuid not null references webhook (id) on delete cascade,
      pos bigint not null,
      hash text not null,
      at bigint not null,
      attempts integer not null default 0,
      next_at bigint not null,
      lease_until bigint,
      primary key (webhook_id, pos)
    )`.execute(db);
  // One asset's events go out in order: the earliest owed per webhook and asset goes first.
  await sql`create index webhook_delivery_asset on webhook_delivery (webhook_id, hash, pos)`.execute(
    db,
  );
  await sql`create index webhook_delivery_due on webhook_delivery (next_at)`.execute(db);
  await sql`
    create table webhook_attempt (
      id bigint generated always as identity primary key,
      webhook_id uuid not null references webhook (id) on delete cascade,
      event_id bigint not null,
      status integer,
      error text,
      at bigint not null,
      duration_ms integer not null
    )`.execute(db);
  await sql`create index webhook_attempt_recent on webhook_attempt (webhook_id, id)`.execute(db);
  await sql`create index webhook_attempt_at on webhook_attempt (at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table webhook_attempt`.execute(db);
  await sql`drop table webhook_delivery`.execute(db);
  await sql`drop table webhook`.execute(db);
}
