import { preparedAs } from '@svc/database';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { Doorbell } from '../pubsub/pubsub.port.js';
import { INBOX_DEFAULT_LIMIT } from './message.schemas.js';
import type { MessageRow, NewMessageRow } from './message.table.js';

/** One advisory lock key for all message writing, across every instance. */
const WRITE_LOCK_KEY = sql`hashtext('handle_relay.message_writer')`;

/** Above every seq the identity column can issue: the open end of a recipient's range. */
const SEQ_MAX = sql.lit(9223372036854775807n);

/**
 * `<table>.recipient = recipient and <table>.seq > afterSeq`, written as a range of
 * (recipient, seq) rows, for queries that order by (recipient, seq). Only the (recipient,
 * seq) index serves that range and that order, so Postgres cannot plan the other way:
 * walking the primary key in seq order and filtering on the recipient, which looks cheap for
 * a recipient it takes to be typical and reads every later row for one with few messages.
 * `recipient` and `afterSeq` are values, or SQL such as another table's column.
 */
function recipientRange(table: string, recipient: unknown, afterSeq: unknown) {
  const row = sql`(${sql.ref(`${table}.recipient`)}, ${sql.ref(`${table}.seq`)})`;
  return sql<boolean>`${row} > (${recipient}, ${afterSeq})
    and ${row} < (${recipient}, ${SEQ_MAX})`;
}

/** Where a message was stored, and whether its recipient has push subscriptions to notify. */
export type InsertedMessage = Pick<MessageRow, 'seq' | 'recipient'> & { has_push: boolean };

/**
 * Stores a batch in one statement, which is its own transaction: it takes the global
 * message-writing lock first, numbers the rows in the order given (volatile sequence
 * defaults are computed after the sort, hence after the lock), and, given a doorbell,
 * evaluates its ring once (the pub/sub adapter's notification, which PostgreSQL sends at
 * commit). The lock is released only after the commit, so batches are numbered and become
 * visible in one order across instances: a reader never sees seq n+1 before seq n. Seqs and
 * recipients come back ascending by seq (not the envelopes: the caller has them, and
 * echoing up to 4 MiB back would double the traffic), each with whether its recipient has
 * push subscriptions. An unknown recipient fails the foreign key for the whole batch.
 * Its text never varies, so it is prepared on each server connection: planning it per call
 * cost more than a prepared run (bench/NOTES.md).
 */
export async function insertMessageBatch(
  db: Kysely<Database>,
  rows: readonly Pick<NewMessageRow, 'recipient' | 'envelope' | 'created_text'>[],
  doorbell: Doorbell | undefined,
): Promise<InsertedMessage[]> {
  const recipients = rows.map((r) => r.recipient);
  const envelopes = rows.map((r) => r.envelope);
  const times = rows.map((r) => r.created_text);
  // A scalar subquery, so the ring is evaluated once per batch, not once per row.
  const notify = doorbell
    ? sql`, (select ${doorbell.ring(rows, sql<number>`max(seq)`)} from inserted) as notified`
    : sql``;
  const { rows: stored } = await sql<InsertedMessage>`${preparedAs(
    doorbell ? 'insert_message_batch_notify' : 'insert_message_batch',
  )}
    with locked as materialized (select pg_advisory_xact_lock(${WRITE_LOCK_KEY})),
    inserted as (
      insert into message (recipient, envelope, created_at, created_text)
      select t.r, t.e, t.c::timestamptz, t.c
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
    .where(recipientRange('message', recipient, afterSeq))
    .orderBy('recipient')
    .orderBy('seq')
    .limit(limit)
    .execute();
}

/** The highest seq stored for `recipient`, 0 when none (the top of its index range). */
export async function latestSeq(db: Kysely<Database>, recipient: string): Promise<number> {
  const row = await db
    .selectFrom('message')
    .select('seq')
    .where(recipientRange('message', recipient, 0))
    .orderBy('recipient', 'desc')
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
 * query: a lateral index range scan for the page, and one index probe past its last seq
 * for whether more exist (cheaper for Postgres than numbering `limit + 1` rows with a
 * window); `undefined` when the handle does not exist. Both are (recipient, seq) ranges as
 * `recipientRange` writes them, with the recipient taken from the handle row. Postgres
 * writes the page's JSON text itself, each message as `messageJson` would (the envelope
 * and the timestamp's stored text spliced verbatim): the service gets one string instead of
 * a row per message to decode, copy and join again (measured: as rows, the service's
 * decoding cost more than Postgres saved).
 *
 * Pages of the default size are a prepared statement: planning this query cost Postgres
 * about as much as running it. The limit is written into the text, so the statement's
 * estimates are those of a real page and Postgres keeps one generic plan for it; with the
 * limit as a parameter it planned every call again. Other sizes are planned per call, as
 * each prepared size would hold about 100 KB of every server connection.
 */
export async function readInboxPage(
  db: Kysely<Database>,
  recipient: string,
  afterSeq: number,
  limit: number,
): Promise<InboxRows | undefined> {
  const handleColumn = sql.ref('h.handle');
  const { rows } = await sql<{
    primary_key: string;
    last_seq: number | null;
    has_more: boolean;
    messages: string | null;
  }>`${limit === INBOX_DEFAULT_LIMIT ? preparedAs('inbox_page') : sql``}
    select h.primary_key, p.last_seq, p.messages,
      (
        select later.seq
        from message later
        where ${recipientRange('later', handleColumn, sql`coalesce(p.last_seq, ${afterSeq})`)}
        order by later.recipient, later.seq
        limit 1
      ) is not null as has_more
    from handle h
    cross join lateral (
      select max(m.seq) as last_seq,
        string_agg(
          '{"seq":' || m.seq || ',"envelope":' || m.envelope || ',"created_at":"' || m.created_text
            || '"}',
          ',' order by m.seq
        ) as messages
      from (
        select seq, envelope, created_text
        from message
        where ${recipientRange('message', handleColumn, afterSeq)}
        order by message.recipient, message.seq
        limit ${sql.lit(limit)}
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
    hasMore: row.has_more,
  };
}
