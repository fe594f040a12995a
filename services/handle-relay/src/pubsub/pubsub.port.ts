import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { RelayedMessage } from '../messages/message.model.js';

/** What a live stream hears from the pub/sub. */
export interface PubSubListener {
  /** A message stored for the subscribed handle; a handle's messages arrive in seq order. */
  message(message: RelayedMessage): void;
}

/**
 * Fan-out of stored messages to the live streams of every instance. The writer rings the
 * doorbell inside each batch's transaction (`ring`), then hands the committed rows to this
 * instance's streams (`deliver`); other instances read the rows they missed from the store.
 */
export interface PubSub {
  /** Tells the other instances, inside the batch's transaction, that rows up to `lastSeq` exist. */
  ring(trx: Kysely<Database>, lastSeq: number): Promise<void>;
  /**
   * Hands rows this instance committed, ascending by seq, to its local listeners. `after`
   * is the highest seq committed before them: rows up to it go out first.
   */
  deliver(messages: readonly RelayedMessage[], after: number): void;
  /** Registers a listener for one handle; returns its unsubscribe. */
  subscribe(handle: string, listener: PubSubListener): () => void;
  close(): Promise<void>;
}
