import type { BucketStoreFactory } from './bucket-store.port.js';

/** A fresh store factory whose clock the test moves (`clock.now`). */
export type MakeBucketStores = (clock: { now: number }) => Promise<BucketStoreFactory>;

/**
 * The behaviour every BucketStore adapter must show: the contract's token bucket, exactly
 * (tus-node-server's store contract suite is the model). Memory and PostgreSQL run it.
 */
export function bucketStoreContract(name: string, make: MakeBucketStores): void {
  describe(`rate-limit bucket store contract: ${name}`, () => {
    it('allows a burst, then refuses with the wait until the next token', async () => {
      const clock = { now: 1_000_000 };
      const store = (await make(clock))('send', 60, 3);
      const taken = [];
      for (let i = 0; i < 3; i++) taken.push(await store.take('a'));
      expect(taken).toEqual([{ allowed: true }, { allowed: true }, { allowed: true }]);
      expect(await store.take('a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
      clock.now += 1_000;
      expect(await store.take('a')).toEqual({ allowed: true });
      expect(await store.take('a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    });

    it('keeps separate buckets per client and per route', async () => {
      const stores = await make({ now: 0 });
      const send = stores('send', 60, 1);
      const register = stores('register', 60, 1);
      expect(await send.take('a')).toEqual({ allowed: true });
      expect(await send.take('b')).toEqual({ allowed: true });
      expect(await register.take('a')).toEqual({ allowed: true });
      expect(await send.take('a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    });

    it('rounds Retry-After up to whole seconds at slow rates, and refills no more than the burst', async () => {
      const clock = { now: 0 };
      const store = (await make(clock))('send', 6, 1);
      await store.take('a');
      expect(await store.take('a')).toEqual({ allowed: false, retryAfterSeconds: 10 });
      clock.now += 3_600_000;
      expect(await store.take('a')).toEqual({ allowed: true });
      expect(await store.take('a')).toEqual({ allowed: false, retryAfterSeconds: 10 });
    });
  });
}
