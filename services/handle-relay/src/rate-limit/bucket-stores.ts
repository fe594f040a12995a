import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { BucketStore, BucketStoreFactory } from './bucket-store.port.js';
import { forgetFullBuckets, takeToken, type BucketShape } from './rate-bucket.repository.js';
import {
  retryAfterSeconds,
  SWEEP_INTERVAL_MS,
  TokenBuckets,
  type TakeResult,
} from './token-bucket.js';

/** Buckets in process memory: the embedded database, which one process at a time owns. */
export function memoryBucketStores(now: () => number): BucketStoreFactory {
  return (_route, perMinute, burst) => {
    const buckets = new TokenBuckets(perMinute, burst, now);
    return { take: (key) => Promise.resolve(buckets.take(key)) };
  };
}

/**
 * Buckets in the database server, so every instance on it spends one budget per client
 * address. Hand-written (one upsert) rather than rate-limiter-flexible's PostgreSQL store:
 * that one counts fixed windows on the wall clock, while the contract's limit is a token
 * bucket (a burst of 60, then the per-minute rate) whose 429s and `Retry-After` must stay
 * exactly as with one instance.
 */
export function postgresBucketStores(db: Kysely<Database>, now: () => number): BucketStoreFactory {
  return (route, perMinute, burst) =>
    new PostgresBuckets(db, { route, perMs: perMinute / 60_000, burst }, now);
}

class PostgresBuckets implements BucketStore {
  #lastSweep: number;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly shape: BucketShape,
    private readonly now: () => number,
  ) {
    this.#lastSweep = now();
  }

  async take(key: string): Promise<TakeResult> {
    const nowMs = this.now();
    if (nowMs - this.#lastSweep >= SWEEP_INTERVAL_MS) {
      this.#lastSweep = nowMs;
      // Once a minute per instance; a failed sweep only keeps rows a minute longer.
      await forgetFullBuckets(this.db, this.shape, nowMs).catch(() => undefined);
    }
    const { tokens, allowed } = await takeToken(this.db, this.shape, key, nowMs);
    if (allowed) return { allowed: true };
    return { allowed: false, retryAfterSeconds: retryAfterSeconds(tokens, this.shape.perMs) };
  }
}
