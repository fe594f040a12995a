import type { RelayedMessage } from '../messages/message.model.js';

/** What a live stream hears from the pub/sub. */
export interface PubSubListener {
  /** A message stored for the subscribed handle; a handle's messages arrive in seq order. */
  message(message: RelayedMessage): void;
}

/**
 * Fan-out of stored messages to the live streams of every instance. The writer's batch
 * statement notifies `notifyChannel` of its last seq at commit, then hands the committed
 * rows to this instance's streams (`deliver`); other instances read them from the store.
 */
export interface PubSub {
  /** The NOTIFY channel other instances listen on; none when there is only this one. */
  readonly notifyChannel: string | undefined;
  /**
   * Hands one batch this instance committed (consecutive seqs, ascending) to its local
   * listeners, after any earlier row they have not heard yet.
   */
  deliver(messages: readonly RelayedMessage[]): void;
  /** Registers a listener for one handle; returns its unsubscribe. */
  subscribe(handle: string, listener: PubSubListener): () => void;
  close(): Promise<void>;
}
