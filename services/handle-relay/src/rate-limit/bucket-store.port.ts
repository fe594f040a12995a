import type { TakeResult } from './token-bucket.js';

/**
 * The port: one route's token buckets per client address (`perMinute` tokens a minute, up
 * to `burst` held), wherever they are kept. Adapters: process memory, a PostgreSQL table.
 */
export interface BucketStore {
  /** Takes one token from `key`'s bucket at the store's `now`. */
  take(key: string): Promise<TakeResult>;
}

/** How one route's buckets are made: `route` tells routes' buckets apart in a shared store. */
export type BucketStoreFactory = (route: string, perMinute: number, burst: number) => BucketStore;
