/**
 * Concurrent calls with the same key share one execution: the first caller starts it,
 * later ones get the same promise until it settles.
 */
export class SingleFlight<K, V> {
  readonly #inFlight = new Map<K, Promise<V>>();

  /** The running promise for `key`, or a new one from `work`. */
  do(key: K, work: () => Promise<V>): Promise<V> {
    const running = this.#inFlight.get(key);
    if (running) return running;
    const started = work().finally(() => this.#inFlight.delete(key));
    this.#inFlight.set(key, started);
    return started;
  }
}
