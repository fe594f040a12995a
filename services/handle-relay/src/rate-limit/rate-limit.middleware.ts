import type { RequestHandler } from 'express';
import { relayErrors } from '../errors.js';
import { RATE_LIMIT_BURST, TokenBuckets } from './token-bucket.js';

/** Settings of one limited route. */
export interface RateLimitOptions {
  /** Tokens per minute per client address; 0 turns limiting off. */
  perMinute: number;
  now: () => number;
  burst?: number;
}

/**
 * Per-client-address token bucket in front of a route (`POST /v1/messages`,
 * `POST /v1/register`): over the limit → 429 `rate_limited` with `Retry-After`. Mount one
 * instance per route, before the body parser, so rejected floods cost no parsing.
 */
export function rateLimit(options: RateLimitOptions): RequestHandler {
  if (options.perMinute <= 0) return (_req, _res, next) => next();
  const buckets = new TokenBuckets(
    options.perMinute,
    options.burst ?? RATE_LIMIT_BURST,
    options.now,
  );
  return (req, _res, next) => {
    const result = buckets.take(req.ip ?? req.socket.remoteAddress ?? 'unknown');
    if (!result.allowed) throw relayErrors.tooManyRequests(result.retryAfterSeconds);
    next();
  };
}
