import type { Kysely } from 'kysely';
import { verifySignedRequest } from '../auth/signed-request.js';
import type { Database } from '../db/database.js';
import { relayErrors } from '../errors.js';
import { findHandle } from '../handles/handle.repository.js';
import { parseQualifiedHandle, requireValidHandle, sameServer } from '../handles/handle-rules.js';
import type { PubSub } from '../pubsub/pubsub.port.js';
import type { KeyedSerializer } from './keyed-serializer.js';
import { toRelayed, type RelayedMessage } from './message.model.js';
import { lockRecipientAndInsert, readInboxPage, unlockRecipient } from './message.repository.js';
import { firstIssue, inboxQuery, MAX_ENVELOPE_BYTES, sendMessageBody } from './message.schemas.js';

/** Something told about each stored message after the send answered (Web Push). */
export interface MessageNotifier {
  notify(handle: string, seq: number): void;
}

/** What the message rules need. */
export interface MessageServiceDeps {
  db: Kysely<Database>;
  server: string;
  pubsub: PubSub;
  notifier: MessageNotifier;
  /** Orders this instance's sends per recipient (store, then publish). */
  sends: KeyedSerializer;
  now: () => number;
}

/** The answer to a send: where the message sits in the global order. */
export interface SentMessage {
  seq: number;
  created_at: string;
}

/** One inbox page, ascending by seq. */
export interface InboxPage {
  messages: RelayedMessage[];
  next_since: number;
  has_more: boolean;
}

const FOREIGN_KEY_VIOLATION = '23503';

/** `to` as a stored handle: bare, or `<handle>@<this server>`; 400 otherwise. */
function recipientOf(to: string, server: string): string {
  const qualified = to.includes('@') ? parseQualifiedHandle(to) : undefined;
  if (to.includes('@')) {
    if (!qualified || !sameServer(qualified.server, server)) {
      throw relayErrors.badRequest('to must be a handle of this server');
    }
    return requireValidHandle(qualified.handle);
  }
  return requireValidHandle(to);
}

/**
 * Stores an envelope for its recipient and announces it to the live streams, then queues
 * Web Push without waiting. Order of checks: body shape 400, recipient exists 404, size 413.
 */
export async function sendMessage(deps: MessageServiceDeps, body: unknown): Promise<SentMessage> {
  const parsed = sendMessageBody.safeParse(body);
  if (!parsed.success) throw relayErrors.badRequest(firstIssue(parsed.error));
  const recipient = recipientOf(parsed.data.to, deps.server);
  const envelope = JSON.stringify(parsed.data.envelope);
  if (Buffer.byteLength(envelope) > MAX_ENVELOPE_BYTES) {
    if (!(await findHandle(deps.db, recipient))) throw relayErrors.unknownHandle();
    throw relayErrors.payloadTooLarge(`envelope is larger than ${MAX_ENVELOPE_BYTES} bytes`);
  }
  const { message, hasPush } = await deps.sends.run(recipient, () =>
    storeAndPublish(deps, { recipient, envelope, created_at: new Date(deps.now()) }),
  );
  if (hasPush) deps.notifier.notify(recipient, message.seq);
  return { seq: message.seq, created_at: message.createdAt };
}

/** A stored and announced message, and whether Web Push has anyone to tell. */
export interface StoredSend {
  message: RelayedMessage;
  hasPush: boolean;
}

/**
 * Stores one message and announces it to every instance's streams. On one pinned
 * connection: recipient lock + insert (committed), notify, unlock; so a recipient's
 * messages are numbered, committed and announced in one order across instances, while
 * sends to different recipients run in parallel (their commits share WAL flushes).
 */
export async function storeAndPublish(
  deps: Pick<MessageServiceDeps, 'db' | 'pubsub'>,
  row: { recipient: string; envelope: string; created_at: Date },
): Promise<StoredSend> {
  return deps.db.connection().execute(async (conn) => {
    try {
      const inserted = await lockRecipientAndInsert(conn, row);
      const message = toRelayed(inserted);
      await deps.pubsub.publish(row.recipient, message, conn);
      return { message, hasPush: inserted.has_push };
    } catch (err) {
      if ((err as { code?: unknown } | null)?.code === FOREIGN_KEY_VIOLATION) {
        throw relayErrors.unknownHandle();
      }
      throw err;
    } finally {
      await unlockRecipient(conn, row.recipient);
    }
  });
}

/** What an inbox poll brings. */
export interface InboxRequest {
  handle: string;
  query: unknown;
  auth: string | undefined;
}

/**
 * One signed inbox page. Order of checks: handle 400, since/limit 400, exists 404, auth
 * 401 (the signature binds `since=<the value used>`). One indexed query reads the owner's
 * key and the page together; the page is returned only once the signature verified.
 */
export async function readInbox(deps: MessageServiceDeps, req: InboxRequest): Promise<InboxPage> {
  const handle = requireValidHandle(req.handle);
  const parsed = inboxQuery.safeParse(req.query);
  if (!parsed.success) throw relayErrors.badRequest(firstIssue(parsed.error));
  const { since, limit } = parsed.data;
  const page = await readInboxPage(deps.db, handle, since, limit + 1);
  if (!page) throw relayErrors.unknownHandle();
  verifySignedRequest({
    value: req.auth,
    primary: page.primary,
    lines: ['GET', `/v1/inbox/${handle}`, `since=${since}`],
    now: deps.now(),
  });
  const rows = page.rows.slice(0, limit);
  const messages = rows.map(toRelayed);
  return {
    messages,
    next_since: messages.at(-1)?.seq ?? since,
    has_more: page.rows.length > limit,
  };
}
