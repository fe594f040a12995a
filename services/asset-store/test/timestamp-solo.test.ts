import { ProcessLock, type DatabaseHandle } from '@svc/database';
import { createTestDatabase, testDatabaseMode, type TestDatabase } from '@svc/testing';
import { sql } from 'kysely';
import pg from 'pg';
import { TimestampAllocator } from '../src/timestamps/timestamp-allocator.js';
import { timestampRow } from '../src/timestamps/timestamp-allocator.repository.js';
import { withTimestampFence } from '../src/timestamps/timestamp-fence.js';
import { SoloIssuer, soloHandle, type SoloTiming } from '../src/timestamps/timestamp-solo.js';
import { timestampSourceContract } from '../src/timestamps/timestamp-source.contract.js';
import { openIndex, SCHEMA, type Database } from '../src/db/database.js';
import { insertAssetRow } from './factories.js';

const SETUP_TIMEOUT_MS = 60_000;

let testDb: TestDatabase;
let url: string;
/** Two handles on one database: two instances, as far as the allocator can tell. */
let first: DatabaseHandle<Database>;
let second: DatabaseHandle<Database>;
const opened: SoloIssuer[] = [];

// Skipped on the embedded database: going solo takes a lock on a server, which the
// embedded database (one process, its own issuer) never needs.
const onServer = testDatabaseMode() === 'postgres' ? describe : describe.skip;

onServer('an instance alone on the timestamp row (solo issuer)', () => {
  beforeAll(async () => {
    testDb = await createTestDatabase('asset_timestamp_solo');
    if (testDb.target.kind !== 'postgres') throw new Error('needs a server');
    url = testDb.target.url;
    first = await openIndex(testDb.target);
    second = await openIndex(testDb.target);
  }, SETUP_TIMEOUT_MS);

  afterEach(async () => {
    for (const solo of opened.splice(0)) await solo.close();
  });

  afterAll(async () => {
    await second?.close();
    await first?.close();
    await testDb?.drop();
  }, SETUP_TIMEOUT_MS);

  async function resetIndex(indexMax: number): Promise<void> {
    await sql`delete from asset`.execute(first.db);
    await sql`update timestamp_allocator set last_issued = 0`.execute(first.db);
    if (indexMax > 0) await insertAssetRow(first.db, { timestamp: indexMax });
  }

  async function rowValue(): Promise<number> {
    const { rows } = await sql<{
      last_issued: number;
    }>`select last_issued from timestamp_allocator`.execute(first.db);
    return Number(rows[0]!.last_issued);
  }

  /** An instance's allocator that goes solo at its first call (or as `timing` says). */
  function instance(
    handle: DatabaseHandle<Database>,
    clock: () => number,
    timing: Partial<SoloTiming> = { tryAfter: 0, retryAfterMs: 60_000 },
  ) {
    const solo = new SoloIssuer(url, SCHEMA, timing);
    opened.push(solo);
    return {
      solo,
      allocator: new TimestampAllocator(clock, timestampRow(handle.db, solo.handle), solo),
    };
  }

  /** An instance that only ever asks the row. */
  const rowOnly = (handle: DatabaseHandle<Database>, clock: () => number) =>
    new TimestampAllocator(clock, timestampRow(handle.db, soloHandle(SCHEMA)));

  timestampSourceContract('database allocator, alone (solo)', async (clock, indexMax) => {
    for (const solo of opened.splice(0)) await solo.close();
    await resetIndex(indexMax);
    return instance(first, clock).allocator;
  });

  it('issues from memory under one reserve in the row, which stays above all it issued', async () => {
    await resetIndex(0);
    const { solo, allocator } = instance(first, () => 1_000);
    const issued = [];
    for (let i = 0; i < 50; i++) issued.push(await allocator.next());
    expect(issued).toEqual(Array.from({ length: 50 }, (_, i) => 1_000 + i));
    expect(solo.issuing).toBe(true);
    // One reserve of 100 from the clock reading; the 50 issued did not need another.
    expect(await rowValue()).toBe(1_099);
    // Renewed once half is used: the row keeps ahead of what is issued.
    for (let i = 0; i < 10; i++) issued.push(await allocator.next());
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await rowValue()).toBe(1_199);
  });

  it('gives the row back when another instance asks, which then issues above the reserve', async () => {
    await resetIndex(0);
    const a = instance(first, () => 1_000);
    const b = rowOnly(second, () => 1_000);
    const fromA = [];
    for (let i = 0; i < 10; i++) fromA.push(await a.allocator.next());
    expect(fromA).toEqual(Array.from({ length: 10 }, (_, i) => 1_000 + i));
    await expect(b.next()).resolves.toBe(1_100);
    expect(a.solo.issuing).toBe(false);
    // From the row now, behind the other instance: one order for both.
    const sequential = [];
    for (let i = 0; i < 10; i++) sequential.push(await (i % 2 === 0 ? a.allocator : b).next());
    expect(sequential).toEqual(Array.from({ length: 10 }, (_, i) => 1_101 + i));
  });

  it('keeps every timestamp distinct when two solo-capable instances ask at once', async () => {
    await resetIndex(0);
    const a = instance(first, Date.now, { tryAfter: 0, retryAfterMs: 0 });
    const b = instance(second, Date.now, { tryAfter: 0, retryAfterMs: 0 });
    const calls = Array.from({ length: 400 }, (_, i) => (i % 2 === 0 ? a : b).allocator.next());
    const all = await Promise.all(calls);
    expect(new Set(all).size).toBe(400);
    // Each instance in the order its callers asked.
    for (const parity of [0, 1]) {
      const own = all.filter((_, i) => i % 2 === parity);
      expect([...own].sort((x, y) => x - y)).toEqual(own);
    }
    // One answered before the next is asked: each above every earlier one, wherever asked.
    const sequential = [];
    for (let i = 0; i < 40; i++) sequential.push(await (i % 2 === 0 ? a : b).allocator.next());
    expect(sequential[0]).toBeGreaterThan(Math.max(...all));
    for (let i = 1; i < sequential.length; i++) {
      expect(sequential[i]).toBeGreaterThan(sequential[i - 1]!);
    }
  });

  it('stops issuing from memory when its connection is cut, and nothing is issued twice', async () => {
    await resetIndex(0);
    const a = instance(first, () => 2_000);
    const b = rowOnly(second, () => 2_000);
    const fromA = [await a.allocator.next(), await a.allocator.next()];
    expect(fromA).toEqual([2_000, 2_001]);
    await sql`select pg_terminate_backend(pid) from pg_stat_activity
      where application_name = ${`${SCHEMA} timestamps`}`.execute(first.db);
    for (let i = 0; i < 100 && a.solo.issuing; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(a.solo.issuing).toBe(false);
    await expect(b.next()).resolves.toBe(2_100);
    await expect(a.allocator.next()).resolves.toBe(2_101);
  });

  /** A lone instance that never answers: the solo lock held on a connection that does not listen. */
  async function stuckHolder(reserveTop: number): Promise<{ ended: Promise<unknown> }> {
    await sql`update timestamp_allocator set last_issued = ${reserveTop}`.execute(first.db);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const ended = new Promise((resolve) => client.on('error', resolve));
    await client.query('select pg_advisory_lock($1::bigint)', [soloHandle(SCHEMA).key]);
    return { ended };
  }

  it('ends the session of a lone instance that does not let go, and issues above its reserve', async () => {
    await resetIndex(0);
    const holder = await stuckHolder(5_099);
    const started = performance.now();
    await expect(rowOnly(second, () => 5_000).next()).resolves.toBe(5_100);
    // Asked for 2 s (eight waits of 250 ms) first.
    expect(performance.now() - started).toBeGreaterThan(1_900);
    await expect(holder.ended).resolves.toBeInstanceOf(Error);
  });

  it('has a rebuild end the session of a lone instance that does not let go', async () => {
    await resetIndex(0);
    const holder = await stuckHolder(6_099);
    const fence = withTimestampFence(new ProcessLock(), url, SCHEMA);
    await expect(fence.run(() => rowOnly(second, () => 6_000).next())).resolves.toBe(6_100);
    await expect(holder.ended).resolves.toBeInstanceOf(Error);
  });

  it('stays off the row while a rebuild holds the fence, and asks the row meanwhile', async () => {
    await resetIndex(0);
    const a = instance(first, () => 3_000, { tryAfter: 0, retryAfterMs: 0 });
    await expect(a.allocator.next()).resolves.toBe(3_000);
    expect(a.solo.issuing).toBe(true);
    const fence = withTimestampFence(new ProcessLock(), url, SCHEMA);
    const during = await fence.run(async () => {
      expect(a.solo.issuing).toBe(false);
      // It tries again at once (no wait set), but cannot take the lock while the fence holds.
      const values = [await a.allocator.next(), await a.allocator.next()];
      expect(a.solo.issuing).toBe(false);
      return values;
    });
    expect(during).toEqual([3_100, 3_101]);
    // After the fence, it goes solo again: a fresh reserve above the row.
    await expect(a.allocator.next()).resolves.toBe(3_102);
    expect(a.solo.issuing).toBe(true);
    expect(await rowValue()).toBe(3_201);
  });
});
