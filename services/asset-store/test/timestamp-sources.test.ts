import { createTestDatabase, type TestDatabase } from '@svc/testing';
import type { DatabaseHandle } from '@svc/database';
import { sql } from 'kysely';
import { maxAssetTimestamp } from '../src/assets/asset.repository.js';
import { TimestampAllocator } from '../src/timestamps/timestamp-allocator.js';
import { timestampRow } from '../src/timestamps/timestamp-allocator.repository.js';
import { TimestampIssuer } from '../src/timestamps/timestamp-issuer.js';
import { soloHandle } from '../src/timestamps/timestamp-solo.js';
import { timestampSourceContract } from '../src/timestamps/timestamp-source.contract.js';
import { openIndex, SCHEMA, type Database } from '../src/db/database.js';
import { insertAssetRow } from './factories.js';

const SETUP_TIMEOUT_MS = 60_000;

let testDb: TestDatabase;
/** Two handles on one database: two instances, as far as the allocator can tell. */
let first: DatabaseHandle<Database>;
let second: DatabaseHandle<Database>;

beforeAll(async () => {
  testDb = await createTestDatabase('asset_timestamps');
  first = await openIndex(testDb.target);
  second = testDb.target.kind === 'postgres' ? await openIndex(testDb.target) : first;
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  if (second !== first) await second.close();
  await first.close();
  await testDb.drop();
}, SETUP_TIMEOUT_MS);

/** An index with one asset at `indexMax` (none for 0) and an allocator that issued none. */
async function resetIndex(indexMax: number): Promise<void> {
  await sql`delete from asset`.execute(first.db);
  await sql`update timestamp_allocator set last_issued = 0`.execute(first.db);
  if (indexMax > 0) await insertAssetRow(first.db, { timestamp: indexMax });
}

timestampSourceContract('in-process issuer', async (clock, indexMax) => {
  await resetIndex(indexMax);
  return new TimestampIssuer(clock, () => maxAssetTimestamp(first.db));
});

/** An allocator on the row alone: one that never goes solo. */
const allocatorOn = (handle: DatabaseHandle<Database>, clock: () => number) =>
  new TimestampAllocator(clock, timestampRow(handle.db, soloHandle(SCHEMA)));

timestampSourceContract('database allocator', async (clock, indexMax) => {
  await resetIndex(indexMax);
  return allocatorOn(first, clock);
});

describe('the database allocator shared by two instances', () => {
  it('issues each timestamp once, whichever instance asks, even under a stopped clock', async () => {
    await resetIndex(0);
    const a = allocatorOn(first, () => 1_000);
    const b = allocatorOn(second, () => 1_000);
    const all = await Promise.all(
      Array.from({ length: 400 }, (_, i) => (i % 2 === 0 ? a : b).next()),
    );
    expect(new Set(all).size).toBe(400);
    expect([...all].sort((x, y) => x - y)).toEqual(
      Array.from({ length: 400 }, (_, i) => 1_000 + i),
    );
  });

  it('issues above every earlier answer of the other instance (one order for all)', async () => {
    await resetIndex(0);
    const a = allocatorOn(first, () => 50);
    const b = allocatorOn(second, () => 40);
    const issued = [];
    for (let i = 0; i < 20; i++) issued.push(await (i % 2 === 0 ? a : b).next());
    expect(issued).toEqual(Array.from({ length: 20 }, (_, i) => 50 + i));
  });

  it('never goes back after a hard rebuild emptied the index', async () => {
    await resetIndex(9_000);
    const a = allocatorOn(first, () => 10);
    await expect(a.next()).resolves.toBe(9_001);
    await sql`delete from asset`.execute(first.db);
    await expect(a.next()).resolves.toBe(9_002);
  });
});
