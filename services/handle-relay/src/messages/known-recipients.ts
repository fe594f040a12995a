/** How many handles the cache remembers before it starts over. */
const DEFAULT_CAPACITY = 100_000;

/**
 * Handles this instance has seen stored. Handles are never deleted, so a handle once found
 * stays valid and a send to it can skip the existence query; only positives are kept, so a
 * handle registered later is simply looked up. Bounded: when full it starts over.
 */
export class KnownRecipients {
  readonly #known = new Set<string>();

  constructor(private readonly capacity = DEFAULT_CAPACITY) {}

  /** True when `handle` was remembered. */
  has(handle: string): boolean {
    return this.#known.has(handle);
  }

  /** Remembers an existing handle. */
  add(handle: string): void {
    if (this.#known.size >= this.capacity) this.#known.clear();
    this.#known.add(handle);
  }
}
