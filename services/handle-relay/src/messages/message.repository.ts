import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { MessageRow, NewMessageRow } from './message.table.js';

function recipientLockKey(recipient: string) {
  return sql`hashtext(${`handle_relay.message:${recipient}`})`;
}

/** A stored message, and whether its recipient has push subscriptions to notify. */
export type InsertedMessage = MessageRow & { has_push: boolean };

/**
 * Takes the recipient's session-level advisory lock, then stores one message with the next
 * global sequence number (one statement, committed on return). The lock outlives the
 * commit, so the caller can announce the message before the next send to this recipient
 * is numbered; release it with `unlockRecipient` on the same connection. A recipient that
 * does not exist fails the foreign key (the lock is held all the same). The same round
 * trip tells whether the recipient has push subscriptions, so most sends skip that query.
 */
export async function lockRecipientAndInsert(
  conn: Kysely<Database>,
  row: Omit<NewMessageRow, 'seq'> & { created_at: Date },
): Promise<InsertedMessage> {
  const { rows } = await sql<InsertedMessage>`
    with inserted as (
      insert into message (recipient, envelope, created_at)
      select ${row.recipient}, ${row.envelope}, ${row.created_at}
      from (select pg_advisory_lock(${recipientLockKey(row.recipient)})) as serialised
      returning seq, recipient, envelope, created_at
    )
    select inserted.*,
      exists (select 1 from push_subscription p where p.handle = inserted.recipient) as has_push
    from inserted
  `.execute(conn);
  const stored = rows[0];
  if (!stored) throw new Error('insert returned no row');
  return stored;
}

/** Releases the lock `lockRecipientAndInsert` took on this connection. */
export async function unlockRecipient(conn: Kysely<Database>, recipient: string): Promise<void> {
  await sql`select pg_advisory_unlock(${recipientLockKey(recipient)})`.execute(conn);
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

/** One message by its sequence number. */
export async function findMessage(
  db: Kysely<Database>,
  seq: number,
): Promise<MessageRow | undefined> {
  return db.selectFrom('message').selectAll().where('seq', '=', seq).executeTakeFirst();
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
  rows: MessageRow[];
}

/**
 * The recipient's primary plus up to `limit` of their messages after `afterSeq`, in one
 * query (a lateral index range scan); `undefined` when the handle does not exist.
 */
export async function readInboxPage(
  db: Kysely<Database>,
  recipient: string,
  afterSeq: number,
  limit: number,
): Promise<InboxRows | undefined> {
  const rows = await db
    .selectFrom('handle as h')
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('message')
          .select(['seq', 'recipient', 'envelope', 'created_at'])
          .whereRef('message.recipient', '=', 'h.handle')
          .where('message.seq', '>', afterSeq)
          .orderBy('message.seq')
          .limit(limit)
          .as('m'),
      (join) => join.onTrue(),
    )
    .select(['h.primary_key', 'm.seq', 'm.recipient', 'm.envelope', 'm.created_at'])
    .where('h.handle', '=', recipient)
    .orderBy('m.seq')
    .execute();
  const first = rows[0];
  if (!first) return undefined;
  const messages: MessageRow[] = [];
  for (const r of rows) {
    if (r.seq !== null && r.recipient !== null && r.envelope !== null && r.created_at !== null) {
      messages.push({
        seq: r.seq,
        recipient: r.recipient,
        envelope: r.envelope,
        created_at: r.created_at,
      });
    }
  }
  return { primary: first.primary_key, rows: messages };
}
