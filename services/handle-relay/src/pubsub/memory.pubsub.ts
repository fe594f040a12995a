import { ListenerRegistry } from './listener-registry.js';
import type { PubSub } from './pubsub.port.js';

/**
 * The in-process adapter: one instance (the embedded database), so there is no one to ring
 * and the writer's committed rows go straight to the local streams.
 */
export function createMemoryPubSub(): PubSub {
  const listeners = new ListenerRegistry();
  return {
    doorbell: undefined,
    deliver: (messages) => {
      for (const m of messages) listeners.deliver(m.recipient, m);
    },
    // The embedded database runs in this process: a failed statement committed nothing.
    recheck: () => undefined,
    subscribe: (handle, listener) => listeners.add(handle, listener),
    close: () => Promise.resolve(),
  };
}
