import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { RelayedMessage } from '../messages/message.model.js';

/** What a live stream hears from the pub/sub. */
export interface PubSubListener {
  /** A message stored for the subscribed handle, in commit order for that handle. */
  message(message: RelayedMessage): void;
  /**
   * Messages may have been missed (the adapter lost its connection and got it back): the
   * listener should re-read the store from its last delivered seq.
   */
  resync(): void;
}

/**
 * Fan-out of stored messages to the live streams of every instance. The send path calls
 * `publish` right after the message committed, on the connection that still holds the
 * recipient's lock, so a recipient's messages are announced in seq order.
 */
export interface PubSub {
  publish(handle: string, message: RelayedMessage, conn: Kysely<Database>): Promise<void>;
  /** Registers a listener for one handle; returns its unsubscribe. */
  subscribe(handle: string, listener: PubSubListener): () => void;
  close(): Promise<void>;
}
