/**
 * Contract: a client may burst this many requests before the per-minute rate applies (a
 * smaller rate caps the burst at a minute's worth).
 */
export const RATE_LIMIT_BURST = 60;

/** How often idle buckets are forgotten, so the store holds only recently active clients. */
export const SWEEP_INTERVAL_MS = 60_000;

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/** The outcome of one take: allowed, or how long until a token is back. */
export type TakeResult = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Whole seconds (at least 1) until a bucket holding `tokens` (< 1) has one again. */
export function retryAfterSeconds(tokens: number, perMs: number): number {
  const waitMs = (1 - tokens) / perMs;
  return Math.max(1, Math.ceil(waitMs / 1000));
}

/**
 * Token buckets per key (client address): `perMinute` tokens a minute, up to `burst`
 * held. A bucket that would be full again is indistinguishable from a new one, so idle
 * buckets are dropped on a periodic sweep and memory follows the active clients only.
 */
export class TokenBuckets {
  readonly #buckets = new Map<string, Bucket>();
  readonly #perMs: number;
  #lastSweep: number;

  constructor(
    private readonly perMinute: number,
    private readonly burst: number,
    private readonly now: () => number,
  ) {
    this.#perMs = perMinute / 60_000;
    this.#lastSweep = now();
  }

  /** Takes one token for `key`. */
  take(key: string): TakeResult {
    const now = this.now();
    if (now - this.#lastSweep >= SWEEP_INTERVAL_MS) this.#sweep(now);
    const bucket = this.#buckets.get(key) ?? { tokens: this.burst, updatedAt: now };
    bucket.tokens = Math.min(
      this.burst,
      bucket.tokens + Math.max(0, now - bucket.updatedAt) * this.#perMs,
    );
    bucket.updatedAt = now;
    this.#buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false, retryAfterSeconds: retryAfterSeconds(bucket.tokens, this.#perMs) };
  }

  /** Number of remembered clients. */
  get size(): number {
    return this.#buckets.size;
  }

  #sweep(now: number): void {
    this.#lastSweep = now;
    for (const [key, bucket] of this.#buckets) {
      if (bucket.tokens + (now - bucket.updatedAt) * this.#perMs >= this.burst) {
        this.#buckets.delete(key);
      }
    }
  }
}
