import type { Kysely } from 'kysely';
import { verifySignedRequest } from '../auth/signed-request.js';
import type { Database } from '../db/database.js';
import { relayErrors } from '../errors.js';
import { findHandle } from '../handles/handle.repository.js';
import { parseQualifiedHandle, requireValidHandle, sameServer } from '../handles/handle-rules.js';
import type { JsonBody } from '../http/body.js';
import { jsonMember } from '../http/json-member.js';
import { validate } from '../http/validate.js';
import type { KnownRecipients } from './known-recipients.js';
import type { MessageWriter } from './message-writer.js';
import { readInboxPage } from './message.repository.js';
import { inboxQuery, MAX_ENVELOPE_BYTES, sendMessageBody } from './message.schemas.js';

/** Something told about each stored message after the send answered (Web Push). */
export interface MessageNotifier {
  notify(handle: string, seq: number): void;
}

/** What the message rules need. */
export interface MessageServiceDeps {
  db: Kysely<Database>;
  server: string;
  notifier: MessageNotifier;
  /** Stores sends in batches and announces them to the streams. */
  writer: MessageWriter;
  /** Handles known to exist, so most sends skip the existence query. */
  knownRecipients: KnownRecipients;
  now: () => number;
}

/** What an inbox poll brings. */
export interface InboxRequest {
  handle: string;
  query: unknown;
  auth: string | undefined;
}

/** The answer to a send: where the message sits in the global order. */
export interface SentMessage {
  seq: number;
  created_at: string;
}

/** One inbox page, ascending by seq. */
export interface InboxPage {
  /** The messages as comma-separated JSON objects `{seq, envelope, created_at}`. */
  messagesJson: string;
  next_since: number;
  has_more: boolean;
}

/** `to` as a stored handle: bare, or `<handle>@<this server>`; 400 otherwise. */
function recipientOf(to: string, server: string): string {
  const qualified = to.includes('@') ? parseQualifiedHandle(to) : undefined;
  if (to.includes('@')) {
    if (!qualified || !sameServer(qualified.server, server)) {
      throw relayErrors.recipientElsewhere();
    }
    return requireValidHandle(qualified.handle);
  }
  return requireValidHandle(to);
}

/**
 * The envelope's JSON text as the sender wrote it, but for whitespace outside strings: the
 * server is opaque to it (a parse and stringify would round big integers, turn `1e400` into
 * `null`, `1.50` into `1.5`), and it stays one line for SSE `data:` lines.
 */
function envelopeText(body: JsonBody | undefined): string {
  const text = body && jsonMember(body.text, 'envelope');
  // Only called once the parsed body proved to be an object with an envelope.
  if (text === undefined) throw new Error('the body text has no envelope member');
  return text;
}

/**
 * The message rules: sends stored in order for a recipient of this server, and signed
 * inbox pages.
 */
export class MessageService {
  constructor(private readonly deps: MessageServiceDeps) {}

  /**
   * Stores an envelope for its recipient and announces it to the live streams, then queues
   * Web Push without waiting. Order of checks: body shape 400, recipient exists 404, size 413
   * (of the stored text). The recipient is checked before the send joins a batch, so an
   * unknown one never costs the batch its single statement; handles are never deleted, so
   * one found stays known.
   */
  async send(body: JsonBody | undefined): Promise<SentMessage> {
    const { deps } = this;
    const { to } = validate(sendMessageBody, body?.value);
    const recipient = recipientOf(to, deps.server);
    const envelope = envelopeText(body);
    if (!deps.knownRecipients.has(recipient)) {
      if (!(await findHandle(deps.db, recipient))) throw relayErrors.unknownHandle();
      deps.knownRecipients.add(recipient);
    }
    if (Buffer.byteLength(envelope) > MAX_ENVELOPE_BYTES) {
      throw relayErrors.envelopeTooLarge(MAX_ENVELOPE_BYTES);
    }
    const { message, hasPush } = await deps.writer.send({
      recipient,
      envelope,
      created_at: new Date(deps.now()),
    });
    if (hasPush) deps.notifier.notify(recipient, message.seq);
    return { seq: message.seq, created_at: message.createdAt };
  }

  /**
   * One signed inbox page. Order of checks: handle 400, since/limit 400, exists 404, auth
   * 401 (the signature binds `since=<the value used>`). One indexed query reads the owner's
   * key and the page together; the page is returned only once the signature verified.
   */
  async readInbox(req: InboxRequest): Promise<InboxPage> {
    const { deps } = this;
    const handle = requireValidHandle(req.handle);
    const { since, limit } = validate(inboxQuery, req.query);
    const page = await readInboxPage(deps.db, handle, since, limit);
    if (!page) throw relayErrors.unknownHandle();
    const lines = (spelled: string) => ['GET', `/v1/inbox/${spelled}`, `since=${since}`];
    verifySignedRequest({
      value: req.auth,
      primary: page.primary,
      lines: lines(handle),
      spelledLines: lines(req.handle),
      now: deps.now(),
    });
    return {
      messagesJson: page.messagesJson,
      next_since: page.lastSeq ?? since,
      has_more: page.hasMore,
    };
  }
}
