import { ListenerRegistry } from './listener-registry.js';
import type { PubSub } from './pubsub.port.js';

/**
 * The in-process adapter: one instance, so publishing is a direct hand-over. Used with the
 * embedded database, whose single connection completes sends one at a time, so messages
 * are published in seq order.
 */
export function createMemoryPubSub(): PubSub {
  const listeners = new ListenerRegistry();
  return {
    publish: (handle, message) => {
      listeners.deliver(handle, message);
      return Promise.resolve();
    },
    subscribe: (handle, listener) => listeners.add(handle, listener),
    close: () => Promise.resolve(),
  };
}
