import { RelayClientError, type RelayClient } from '../client/http-client.js';
import type { InboxMessage } from '../client/inbox-stream.js';
import { EnvelopeError, openEnvelope, sealText } from '../client/envelope-crypto.js';
import type { KeyPair } from '../client/keys.js';

/** A line the CLI prints for a message that opened (CONTRACT, envelope version 1). */
export interface OpenedLine {
  seq: number;
  from: string;
  from_handle: string | null;
  text: string;
  sent_at: string;
}

/** A line for any message that did not open, saying why. */
export interface UnopenedLine {
  seq: number;
  envelope: unknown;
  error: string;
}

/** Encrypts `text` to the key `handle` publishes and relays it. */
export async function sendText(
  client: RelayClient,
  handle: string,
  text: string,
  sender: KeyPair,
): Promise<{ seq: number; created_at: string }> {
  const record = await client.lookup(handle);
  const envelope = sealText({
    text,
    to: record.fqhn,
    recipientPrimary: record.primary,
    sender,
  });
  return client.send(record.handle, envelope);
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
      const opened = openEnvelope(message.envelope, this.keys, this.me);
      return {
        seq: message.seq,
        from: opened.from,
        from_handle: await this.nameOf(opened.from),
        text: opened.text,
        sent_at: opened.sent_at,
      };
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
