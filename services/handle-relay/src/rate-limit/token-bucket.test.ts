import { TokenBuckets } from './token-bucket.js';

describe('token bucket per client', () => {
  it('allows a burst, then refuses with the wait until the next token', () => {
    let now = 1_000_000;
    const buckets = new TokenBuckets(60, 3, () => now);
    expect([1, 2, 3].map(() => buckets.take('a'))).toEqual([
      { allowed: true },
      { allowed: true },
      { allowed: true },
    ]);
    expect(buckets.take('a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    now += 1_000;
    expect(buckets.take('a')).toEqual({ allowed: true });
  });

  it('keeps separate buckets per client', () => {
    const buckets = new TokenBuckets(60, 1, () => 0);
    expect(buckets.take('a')).toEqual({ allowed: true });
    expect(buckets.take('b')).toEqual({ allowed: true });
    expect(buckets.take('a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });

  it('rounds Retry-After up to whole seconds at slow rates', () => {
    const buckets = new TokenBuckets(6, 1, () => 0);
    buckets.take('a');
    expect(buckets.take('a')).toEqual({ allowed: false, retryAfterSeconds: 10 });
  });

  it('forgets clients whose bucket refilled, so memory follows active clients', () => {
    let now = 0;
    const buckets = new TokenBuckets(600, 60, () => now);
    buckets.take('a');
    buckets.take('b');
    expect(buckets.size).toBe(2);
    now += 61_000;
    buckets.take('c');
    expect(buckets.size).toBe(1);
  });
});
