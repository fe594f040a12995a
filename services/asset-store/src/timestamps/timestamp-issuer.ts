/** The port: where asset timestamps come from. */
export interface TimestampSource {
  /**
   * The next timestamp (epoch ms): above every one this source issued before, also to
   * concurrent callers; the clock reading when that is higher (the contract's clock rule).
   */
  next(): Promise<number>;
}

/**
 * Hands out strictly increasing epoch-ms timestamps (contract: when the clock gives a value
 * not above the last one issued, the last one plus 1) from process memory: for the embedded
 * database, which one process at a time owns (its folder lock). Seeded once, lazily, from
 * the index's highest timestamp, so a restart never reuses one even if the clock went back.
 */
export class TimestampIssuer implements TimestampSource {
  #last = 0;
  #seeded: Promise<void> | undefined;

  constructor(
    private readonly clock: () => number,
    private readonly seed: () => Promise<number>,
  ) {}

  /** The next timestamp; concurrent callers always get distinct, increasing values. */
  async next(): Promise<number> {
    this.#seeded ??= this.seed().then(
      (max) => {
        this.#last = Math.max(this.#last, max);
      },
      (err: unknown) => {
        // A failed seed must be retried by the next caller, not remembered forever.
        this.#seeded = undefined;
        throw err;
      },
    );
    await this.#seeded;
    const now = Math.floor(this.clock());
    this.#last = now > this.#last ? now : this.#last + 1;
    return this.#last;
  }
}
