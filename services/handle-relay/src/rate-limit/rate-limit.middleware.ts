import type { IncomingMessage } from 'node:http';
import type { ClientAddress } from '@svc/envelope';
import type { RequestHandler } from 'express';
import { relayErrors } from '../errors.js';
import type { BucketStoreFactory } from './bucket-store.port.js';
import { RATE_LIMIT_BURST } from './token-bucket.js';

/** Settings of one limited route. */
export interface RateLimitOptions {
  /** Names the route's buckets in a store shared with other routes and instances. */
  route: string;
  /** Tokens per minute per client address; 0 turns limiting off. */
  perMinute: number;
  /** Where the buckets are kept: process memory, or the database server (`bucket-stores.ts`). */
  buckets: BucketStoreFactory;
  /** The service's one reading of the client address (`trust_proxy`). */
  clientAddress: ClientAddress;
  burst?: number;
}

/** One route's budget per client address: rejects with 429 `rate_limited` when it is spent. */
export type RateLimiter = (req: IncomingMessage) => Promise<void>;

const unlimited: RateLimiter = () => Promise.resolve();

/** Per-client-address token bucket of one route; a no-op when limiting is off. */
export function createRateLimiter(options: RateLimitOptions): RateLimiter {
  if (options.perMinute <= 0) return unlimited;
  // A burst never exceeds a minute's worth: with a rate below 60 a minute, a client that
  // sends more requests at once than the rate allows is refused.
  const burst = options.burst ?? Math.max(1, Math.min(RATE_LIMIT_BURST, options.perMinute));
  const buckets = options.buckets(options.route, options.perMinute, burst);
  return async (req) => {
    const result = await buckets.take(options.clientAddress(req) ?? 'unknown');
    if (!result.allowed) throw relayErrors.tooManyRequests(result.retryAfterSeconds);
  };
}

/**
 * A limiter in front of a route (`POST /v1/messages`, `POST /v1/register`): over the limit
 * → 429 `rate_limited` with `Retry-After`. Mount it before the body parser, so rejected
 * floods cost no parsing.
 */
export function rateLimit(limiter: RateLimiter): RequestHandler {
  return async (req, _res, next) => {
    await limiter(req);
    next();
  };
}
