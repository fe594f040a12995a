import { createTestDatabase, testDatabaseMode, type TestDatabase } from '@svc/testing';
import { AdvisoryLock, ProcessLock } from './instance-lock.js';
import { instanceLockContract } from './instance-lock.contract.js';

instanceLockContract('in-process', () => {
  const lock = new ProcessLock();
  return [lock, lock];
});

// Skipped on the embedded database: it is one process per folder, so only a server has
// locks that several processes share (the in-process lock is tested above).
const onServer = testDatabaseMode() === 'postgres' ? describe : describe.skip;
onServer('on a PostgreSQL server', () => {
  let testDb: TestDatabase;
  let url = '';
  beforeAll(async () => {
    testDb = await createTestDatabase('advisory_lock');
    if (testDb.target.kind === 'postgres') url = testDb.target.url;
  });
  afterAll(async () => {
    await testDb.drop();
  });

  // Two objects, each opening its own connection: as two instances would.
  instanceLockContract('advisory lock', () => [
    new AdvisoryLock(url, 'test.lock'),
    new AdvisoryLock(url, 'test.lock'),
  ]);

  it('keeps locks of different names apart', async () => {
    const outer = new AdvisoryLock(url, 'test.one');
    const other = new AdvisoryLock(url, 'test.two');
    const result = await outer.tryRun(() => other.tryRun(() => Promise.resolve('both')));
    expect(result).toEqual({ ran: true, value: { ran: true, value: 'both' } });
  });
});
