import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { Doorbell } from '../pubsub/pubsub.port.js';
import type { MessageRow, NewMessageRow } from './message.table.js';

/** One advisory lock key for all message writing, across every instance. */
const WRITE_LOCK_KEY = sql`hashtext('handle_relay.message_writer')`;

/** Where a message was stored, and whether its recipient has push subscriptions to notify. */
export type InsertedMessage = Pick<MessageRow, 'seq' | 'recipient'> & { has_push: boolean };

/**
 * Stores a batch in one statement, which is its own transaction: it takes the global
 * message-writing lock first, numbers the rows in the order given (volatile sequence
 * defaults are computed after the sort, hence after the lock), and, given a doorbell,
 * notifies its channel of the sender and the batch's last seq (and the rows, when they fit)
 * at commit. The lock is released only after the commit, so batches are numbered and become
 * visible in one order across instances: a reader never sees seq n+1 before seq n. Seqs and
 * recipients come back ascending by seq (not the envelopes: the caller has them, and
 * echoing up to 4 MiB back would double the traffic), each with whether its recipient has
 * push subscriptions. An unknown recipient fails the foreign key for the whole batch.
 */
export async function insertMessageBatch(
  db: Kysely<Database>,
  rows: readonly (Omit<NewMessageRow, 'seq'> & { created_at: Date })[],
  doorbell: Doorbell | undefined,
): Promise<InsertedMessage[]> {
  const recipients = rows.map((r) => r.recipient);
  const envelopes = rows.map((r) => r.envelope);
  const times = rows.map((r) => r.created_at.toISOString());
  const notify = doorbell
    ? sql`, (select pg_notify(${doorbell.channel}, ${`${doorbell.sender}:${doorbell.carry(rows)}`} || max(seq)) from inserted) as notified`
    : sql``;
  const { rows: stored } = await sql<InsertedMessage>`
    with locked as materialized (select pg_advisory_xact_lock(${WRITE_LOCK_KEY})),
    inserted as (
      insert into message (recipient, envelope, created_at)
      select t.r, t.e, t.c::timestamptz
      from locked,
        unnest(${recipients}::text[], ${envelopes}::text[], ${times}::text[])
          with ordinality as t(r, e, c, n)
      order by t.n
      returning seq, recipient
    )
    select inserted.seq, inserted.recipient,
      exists (select 1 from push_subscription p where p.handle = inserted.recipient) as has_push
      ${notify}
    from inserted
    order by inserted.seq
  `.execute(db);
  return stored;
}

/** Messages of every recipient after `afterSeq`, ascending, at most `limit` (primary key). */
export async function listAllMessagesAfter(
  db: Kysely<Database>,
  afterSeq: number,
  limit: number,
): Promise<MessageRow[]> {
  return db
    .selectFrom('message')
    .selectAll()
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
}

/** The highest seq stored for anyone, 0 when none. */
export async function latestStoredSeq(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('message')
    .select('seq')
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.seq ?? 0;
}

/** Messages of `recipient` after `afterSeq`, ascending, at most `limit` (index range scan). */
export async function listMessagesAfter(
  db: Kysely<Database>,
  recipient: string,
  afterSeq: number,
  limit: number,
): Promise<MessageRow[]> {
  return db
    .selectFrom('message')
    .selectAll()
    .where('recipient', '=', recipient)
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
}

/** The highest seq stored for `recipient`, 0 when none. */
export async function latestSeq(db: Kysely<Database>, recipient: string): Promise<number> {
  const row = await db
    .selectFrom('message')
    .select('seq')
    .where('recipient', '=', recipient)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.seq ?? 0;
}

/** Deletes up to `batch` messages created before `cutoff`; returns how many went. */
export async function deleteMessagesBefore(
  db: Kysely<Database>,
  cutoff: Date,
  batch: number,
): Promise<number> {
  const res = await db
    .deleteFrom('message')
    .where(
      'seq',
      'in',
      db
        .selectFrom('message')
        .select('seq')
        .where('created_at', '<', cutoff)
        .orderBy('seq')
        .limit(batch),
    )
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}

/** The owner's primary and one page of their messages, read together. */
export interface InboxRows {
  primary: string;
  /** The page's messages as comma-separated JSON objects, ascending by seq. */
  messagesJson: string;
  /** The last seq on the page; `null` when it is empty. */
  lastSeq: number | null;
  /** Whether messages beyond the page exist. */
  hasMore: boolean;
}

/**
 * The recipient's primary plus up to `limit` of their messages after `afterSeq`, in one
 * query (a lateral index range scan of `limit + 1` rows, the extra one telling whether more
 * exist); `undefined` when the handle does not exist. Postgres writes the page's JSON text
 * itself, each message as `messageJson` would (the envelope spliced verbatim, the timestamp
 * as `Date#toISOString` writes it): the service gets one string instead of a row per
 * message to decode, copy and join again.
 */
export async function readInboxPage(
  db: Kysely<Database>,
  recipient: string,
  afterSeq: number,
  limit: number,
): Promise<InboxRows | undefined> {
  const { rows } = await sql<{
    primary_key: string;
    last_seq: number | null;
    fetched: number;
    messages: string | null;
  }>`
    select h.primary_key, p.last_seq, p.fetched, p.messages
    from handle h
    cross join lateral (
      select count(*)::int as fetched,
        max(m.seq) filter (where m.n <= ${limit}) as last_seq,
        string_agg(
          '{"seq":' || m.seq || ',"envelope":' || m.envelope || ',"created_at":"'
            || to_char(m.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"}',
          ',' order by m.seq
        ) filter (where m.n <= ${limit}) as messages
      from (
        select seq, envelope, created_at, row_number() over (order by seq) as n
        from message
        where message.recipient = h.handle and message.seq > ${afterSeq}
        order by seq
        limit ${limit + 1}
      ) m
    ) p
    where h.handle = ${recipient}
  `.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  return {
    primary: row.primary_key,
    messagesJson: row.messages ?? '',
    lastSeq: row.last_seq,
    hasMore: row.fetched > limit,
  };
}
