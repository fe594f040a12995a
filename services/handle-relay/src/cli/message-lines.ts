import { RelayClientError, type RelayClient } from '../client/http-client.js';
import type { InboxMessage } from '../client/inbox-stream.js';
import { EnvelopeError, openMessage, sealSentCopy, sealText } from '../client/envelope-crypto.js';
import { primaryOf, type KeyPair } from '../client/keys.js';

/**
 * A line the CLI prints for a message that opened (CONTRACT, envelope version 1). A copy of
 * a message this key sent (from another device, or this CLI) also says whom it went to.
 */
export interface OpenedLine {
  seq: number;
  from: string;
  from_handle: string | null;
  to?: string;
  text: string;
  sent_at: string;
}

/** A line for any message that did not open, saying why. */
export interface UnopenedLine {
  seq: number;
  envelope: unknown;
  error: string;
}

/** What `send` reports: the message's seq, and its copy's in the sender's own inbox. */
export interface SentText {
  seq: number;
  created_at: string;
  /** The seq of the sender's own copy; null when the key owns no handle or sent to itself. */
  copy_seq: number | null;
  /** Set when the message went but its copy did not: why. */
  copy_error?: string;
}

/**
 * Encrypts `text` to the key `handle` publishes and relays it; then stores the sender's own
 * encrypted copy in the sender's inbox (CONTRACT, "Additions, part 2"), so the web app and
 * other devices holding the key show the message too. A key that owns no handle has no
 * inbox for a copy; a message to oneself is its own copy.
 */
export async function sendText(
  client: RelayClient,
  handle: string,
  text: string,
  sender: KeyPair,
): Promise<SentText> {
  const record = await client.lookup(handle);
  const sentAt = new Date().toISOString();
  const envelope = sealText({
    text,
    to: record.fqhn,
    recipientPrimary: record.primary,
    sender,
    sentAt,
  });
  const sent = await client.send(record.handle, envelope);
  const me = primaryOf(sender.publicKey);
  if (record.primary.toLowerCase() === me) return { ...sent, copy_seq: sent.seq };
  try {
    const own = await client.byPrimary(me);
    const copy = sealSentCopy({ text, to: record.fqhn, sender, sentAt });
    return { ...sent, copy_seq: (await client.send(own.handle, copy)).seq };
  } catch (err) {
    if (err instanceof RelayClientError && err.status === 404) return { ...sent, copy_seq: null };
    return {
      ...sent,
      copy_seq: null,
      copy_error: err instanceof Error ? err.message : String(err),
    };
  }
}

/**
 * Turns received messages into the CLI's lines, naming each sender by a reverse lookup of
 * its key. Names are cached for the reader's life: a listener hearing one sender many times
 * asks the relay once.
 */
export class MessageReader {
  private readonly names = new Map<string, Promise<string | null>>();

  private constructor(
    private readonly client: RelayClient,
    private readonly keys: KeyPair,
    private readonly me: string,
  ) {}

  /** A reader for `handle`'s messages; asks the relay for the handle's `handle@server`. */
  static async forHandle(client: RelayClient, handle: string, keys: KeyPair) {
    const record = await client.lookup(handle);
    return new MessageReader(client, keys, record.fqhn);
  }

  /** The line for one message. */
  async line(message: InboxMessage): Promise<OpenedLine | UnopenedLine> {
    try {
      const opened = openMessage(message.envelope, this.keys, this.me);
      const from_handle = await this.nameOf(opened.from);
      const { text, sent_at } = opened;
      if (opened.type === 'sent') {
        return { seq: message.seq, from: opened.from, from_handle, to: opened.to, text, sent_at };
      }
      return { seq: message.seq, from: opened.from, from_handle, text, sent_at };
    } catch (err) {
      if (!(err instanceof EnvelopeError)) throw err;
      return { seq: message.seq, envelope: message.envelope, error: err.message };
    }
  }

  private nameOf(primary: string): Promise<string | null> {
    let name = this.names.get(primary);
    if (!name) {
      name = this.client.byPrimary(primary).then(
        (record) => record.handle,
        (err: unknown) => {
          // A key that owns no handle is named by its key alone. Any other failure (the
          // relay unreachable for a moment) names no one now and is asked again next time.
          if (!(err instanceof RelayClientError && err.status === 404)) {
            this.names.delete(primary);
          }
          return null;
        },
      );
      this.names.set(primary, name);
    }
    return name;
  }
}
