import type { DatabaseHandle } from '@svc/database';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { sql } from 'kysely';
import { openStore, type Database } from '../src/db/database.js';
import { bucketStoreContract } from '../src/rate-limit/bucket-store.contract.js';
import { memoryBucketStores, postgresBucketStores } from '../src/rate-limit/bucket-stores.js';
import { SETUP_TIMEOUT_MS } from './test-app.js';

let testDb: TestDatabase;
/** Two handles on one database: two instances, as far as the buckets can tell. */
let first: DatabaseHandle<Database>;
let second: DatabaseHandle<Database>;

beforeAll(async () => {
  testDb = await createTestDatabase('relay_rate_buckets');
  first = await openStore(testDb.target);
  second = testDb.target.kind === 'postgres' ? await openStore(testDb.target) : first;
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  if (second !== first) await second.close();
  await first.close();
  await testDb.drop();
}, SETUP_TIMEOUT_MS);

bucketStoreContract('memory', (clock) => Promise.resolve(memoryBucketStores(() => clock.now)));

bucketStoreContract('database', async (clock) => {
  await sql`delete from rate_bucket`.execute(first.db);
  return postgresBucketStores(first.db, () => clock.now);
});

describe('buckets in the database', () => {
  beforeEach(async () => {
    await sql`delete from rate_bucket`.execute(first.db);
  });

  it('are one budget for every instance: a burst spent across two is spent on both', async () => {
    const clock = { now: 5_000_000 };
    const a = postgresBucketStores(first.db, () => clock.now)('send', 600, 60);
    const b = postgresBucketStores(second.db, () => clock.now)('send', 600, 60);
    const taken = await Promise.all(
      Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? a : b).take('203.0.113.9')),
    );
    expect(taken.every((t) => t.allowed)).toBe(true);
    expect(await a.take('203.0.113.9')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(await b.take('203.0.113.9')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(await b.take('203.0.113.10')).toEqual({ allowed: true });
  });

  it('forget the buckets of clients idle long enough to be full again', async () => {
    const clock = { now: 0 };
    const store = postgresBucketStores(first.db, () => clock.now)('send', 600, 60);
    await store.take('a');
    await store.take('b');
    clock.now += 61_000;
    await store.take('c');
    const rows = await first.db.selectFrom('rate_bucket').select('address').execute();
    expect(rows).toEqual([{ address: 'c' }]);
  });
});
