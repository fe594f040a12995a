import type { RawBuilder } from 'kysely';
import type { RelayedMessage } from '../messages/message.model.js';

/** What a live stream hears from the pub/sub. */
export interface PubSubListener {
  /** A message stored for the subscribed handle; a handle's messages arrive in seq order. */
  message(message: RelayedMessage): void;
}

/** A message as the writer stores it, before it has a seq. */
export interface RowToAnnounce {
  recipient: string;
  /** The envelope's JSON text. */
  envelope: string;
  /** `created_at` as clients get it (RFC 3339 UTC, milliseconds). */
  created_text: string;
}

/**
 * How a batch statement rings the other instances at its commit: the SQL expression it
 * evaluates once, given the batch's rows and its last seq as SQL. The adapter alone decides
 * what the ring says; the statement only carries it, so the ring commits with the rows.
 */
export interface Doorbell {
  ring(rows: readonly RowToAnnounce[], lastSeq: RawBuilder<number>): RawBuilder<unknown>;
}

/**
 * Fan-out of stored messages to the live streams of every instance. The writer's batch
 * statement rings the `doorbell` with its last seq at commit, then hands the committed
 * rows to this instance's streams (`deliver`); other instances take them from the
 * notification or read them from the store.
 */
export interface PubSub {
  /** How other instances hear of a batch; none when there is only this one. */
  readonly doorbell: Doorbell | undefined;
  /**
   * Hands one batch this instance committed (consecutive seqs, ascending) to its local
   * listeners, after any earlier row they have not heard yet.
   */
  deliver(messages: readonly RelayedMessage[]): void;
  /**
   * A batch statement of this instance failed, perhaps after its commit (a lost
   * connection): its rows, if stored, reach the local listeners from the store.
   */
  recheck(): void;
  /** Registers a listener for one handle; returns its unsubscribe. */
  subscribe(handle: string, listener: PubSubListener): () => void;
  close(): Promise<void>;
}
