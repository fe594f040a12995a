import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { RelayedMessage } from '../messages/message.model.js';
import { listenWithReconnect, type ListenClient } from './listen-connection.js';
import { ListenerRegistry } from './listener-registry.js';
import type { PubSub, RowToAnnounce } from './pubsub.port.js';

export type { ListenClient } from './listen-connection.js';
import { SeqCursor } from './seq-cursor.js';

/** The NOTIFY channel; databases are separate namespaces, so one fixed name is enough. */
export const NOTIFY_CHANNEL = 'handle_relay_messages';

/**
 * PostgreSQL refuses a NOTIFY payload of 8,000 bytes or more; the sender id and the seq
 * take under 60 of them.
 */
const MAX_CARRIED_BYTES = 7_900;

/**
 * The part of the payload that carries a batch, between the sender and the last seq: a
 * JSON array of `[recipient, created_at, envelope text]` in seq order (the batch's seqs
 * are consecutive up to the last) and `:`. Empty when the batch would not fit. The seq
 * stays last, after the last colon, so an instance that only knows `<sender>:<last seq>`
 * still reads it (and, not recognising the sender, reads the rows from the store).
 */
export function carriedRows(rows: readonly RowToAnnounce[]): string {
  let chars = 0;
  for (const r of rows) {
    chars += r.envelope.length + r.recipient.length;
    if (chars > MAX_CARRIED_BYTES) return '';
  }
  const carried = `${JSON.stringify(rows.map((r) => [r.recipient, r.created_text, r.envelope]))}:`;
  return Buffer.byteLength(carried) <= MAX_CARRIED_BYTES ? carried : '';
}

/** The rows a payload carries, numbered up to `lastSeq`; undefined when it carries none. */
function rowsOf(carried: string, lastSeq: number): RelayedMessage[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(carried);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return undefined;
  const first = lastSeq - parsed.length + 1;
  const messages: RelayedMessage[] = [];
  for (const [i, row] of parsed.entries()) {
    if (!Array.isArray(row) || row.length !== 3 || !row.every((v) => typeof v === 'string')) {
      return undefined;
    }
    const [recipient, createdAt, envelopeJson] = row as [string, string, string];
    messages.push({ seq: first + i, recipient, createdAt, envelopeJson });
  }
  return messages;
}

/** What the adapter needs from outside. */
export interface PostgresPubSubDeps {
  /** Checks out a dedicated connection (the pool's `connect`). */
  connect: () => Promise<ListenClient>;
  /** Stored messages of every recipient after `afterSeq`, ascending, at most `limit`. */
  readAfter: (afterSeq: number, limit: number) => Promise<RelayedMessage[]>;
  /** The highest stored seq (0 when none). */
  latestSeq: () => Promise<number>;
  logger: Logger;
}

/**
 * The LISTEN/NOTIFY adapter. The notification of a batch commits with its rows and carries
 * them when they fit (see carriedRows); the cursor (SeqCursor) hands them on or reads the
 * store. Its own notifications are ignored: the writer hands those rows over itself, and
 * reading them back would cost a query per batch.
 */
export async function createPostgresPubSub(deps: PostgresPubSubDeps): Promise<PubSub> {
  const listeners = new ListenerRegistry();
  const sender = randomUUID();
  const cursor = new SeqCursor({
    listeners,
    readAfter: deps.readAfter,
    logger: deps.logger,
    lastSeen: await deps.latestSeq(),
  });
  const want = (seq: number): void => cursor.want(seq);

  const heard = (payload: string): void => {
    // `<sender>:<last seq>`, or `<sender>:<rows>:<last seq>` (see carriedRows).
    const colon = payload.indexOf(':');
    const lastColon = payload.lastIndexOf(':');
    // This instance's own batches reach its listeners from the writer.
    if (colon > 0 && payload.slice(0, colon) === sender) return;
    const seq = Number(payload.slice(lastColon + 1));
    if (colon < 1 || !Number.isSafeInteger(seq)) {
      deps.logger.warn({ payload: payload.slice(0, 200) }, 'ignored a malformed notification');
      return;
    }
    const carried =
      lastColon > colon ? rowsOf(payload.slice(colon + 1, lastColon), seq) : undefined;
    if (carried) cursor.offer(carried);
    else want(seq);
  };

  const listening = await listenWithReconnect({
    connect: deps.connect,
    channel: NOTIFY_CHANNEL,
    heard,
    // Anything committed while the connection was down rang no bell here.
    reconnected: () => want(Infinity),
    logger: deps.logger,
  });

  return {
    // `<sender>:<rows>:<last seq>`: an instance ignores its own rings, and takes the rows
    // from the payload when they fit in it.
    doorbell: {
      ring: (rows, lastSeq) =>
        sql`pg_notify(${NOTIFY_CHANNEL}, ${`${sender}:${carriedRows(rows)}`} || ${lastSeq})`,
    },
    // Seqs are drawn under the writing lock, so every seq below this batch belongs to a
    // committed row or to none ever (a failed batch); rows of another instance that lie
    // between the cursor and this batch are read from the store first.
    deliver: (messages) => cursor.offer(messages),
    recheck: () => want(Infinity),
    subscribe: (h, listener) => listeners.add(h, listener),
    close: async () => {
      const reading = cursor.close();
      await listening.close();
      await reading;
    },
  };
}
