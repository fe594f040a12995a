import type { RelayedMessage } from '../messages/message.model.js';
import type { PubSubListener } from './pubsub.port.js';

/** The local listeners per handle, shared by both adapters. */
export class ListenerRegistry {
  readonly #byHandle = new Map<string, Set<PubSubListener>>();

  /** Adds a listener; the returned function removes it (idempotent). */
  add(handle: string, listener: PubSubListener): () => void {
    let set = this.#byHandle.get(handle);
    if (!set) {
      set = new Set();
      this.#byHandle.set(handle, set);
    }
    set.add(listener);
    return () => {
      const current = this.#byHandle.get(handle);
      if (!current) return;
      current.delete(listener);
      if (current.size === 0) this.#byHandle.delete(handle);
    };
  }

  /** True when some local stream listens to `handle`. */
  has(handle: string): boolean {
    return this.#byHandle.has(handle);
  }

  /** Hands a message to every listener of `handle`. */
  deliver(handle: string, message: RelayedMessage): void {
    const set = this.#byHandle.get(handle);
    if (!set) return;
    // No copy per message: a listener removed meanwhile is skipped, one added is handed the
    // message too, and a stream writes a seq at most once either way.
    for (const listener of set) listener.message(message);
  }

  /** Number of registered listeners (metrics and tests). */
  get size(): number {
    let n = 0;
    for (const set of this.#byHandle.values()) n += set.size;
    return n;
  }
}
