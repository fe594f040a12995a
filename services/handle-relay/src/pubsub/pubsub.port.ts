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
 * `publish` once the message is committed; an adapter whose database announces inserts
 * itself (LISTEN/NOTIFY) has nothing left to do there.
 */
export interface PubSub {
  publish(handle: string, message: RelayedMessage): Promise<void>;
  /** Registers a listener for one handle; returns its unsubscribe. */
  subscribe(handle: string, listener: PubSubListener): () => void;
  close(): Promise<void>;
}
