import { createTestDatabase, testDatabaseMode, type TestDatabase } from '@svc/testing';
import { AdvisoryPresence, ProcessPresence } from './instance-presence.js';

describe('presence in one process (embedded database)', () => {
  it('counts every other instance as gone, never itself', async () => {
    const me = new ProcessPresence();
    expect(await me.isGone(me.id)).toBe(false);
    expect(await me.isGone(new ProcessPresence().id)).toBe(true);
  });
});

// Skipped on the embedded database: only a server has sessions that several processes share.
const onServer = testDatabaseMode() === 'postgres' ? describe : describe.skip;
onServer('presence on a PostgreSQL server', () => {
  let testDb: TestDatabase;
  let url = '';
  beforeAll(async () => {
    testDb = await createTestDatabase('instance_presence');
    if (testDb.target.kind === 'postgres') url = testDb.target.url;
  });
  afterAll(async () => {
    await testDb.drop();
  });

  it('sees a live instance as present, and as gone once its connection is closed', async () => {
    const a = await AdvisoryPresence.hold(url, 'test');
    const b = await AdvisoryPresence.hold(url, 'test');
    try {
      expect(await b.isGone(a.id)).toBe(false);
      // Asked twice: the probe of a live instance takes nothing from it.
      expect(await b.isGone(a.id)).toBe(false);
      expect(await a.isGone(b.id)).toBe(false);
      expect(await b.isGone(b.id)).toBe(false);
      await a.close();
      expect(await b.isGone(a.id)).toBe(true);
      // The probe gave the dead instance's lock back: a third instance sees it gone too.
      const c = await AdvisoryPresence.hold(url, 'test');
      expect(await c.isGone(a.id)).toBe(true);
      expect(await c.isGone(b.id)).toBe(false);
      await c.close();
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('keeps namespaces apart: the same id in another service is not this one', async () => {
    const a = await AdvisoryPresence.hold(url, 'one');
    const b = await AdvisoryPresence.hold(url, 'two');
    try {
      expect(await b.isGone(a.id)).toBe(true);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
