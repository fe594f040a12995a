/**
 * At most `limit` tasks run at once; the rest wait in arrival order. Bounds memory and CPU
 * for bursts of resizes or hashes without refusing any of them.
 */
export class Limiter {
  #active = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error('limit must be a positive integer');
  }

  /** Tasks running right now. */
  get active(): number {
    return this.#active;
  }

  /** Runs `task` once a slot is free; resolves or rejects with it. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#active >= this.limit) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#active++;
    }
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter, so the count never dips and overshoots.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#active--;
    }
  }
}
