import { createTestDatabase, TcpProxy, testDatabaseMode, type TestDatabase } from '@svc/testing';
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

  it('holds its presence again after its connection was lost, and probes others meanwhile', async () => {
    const server = new URL(url);
    const proxy = await TcpProxy.start(server.hostname, Number(server.port || 5432));
    const a = await AdvisoryPresence.hold(proxy.rewrite(url), 'test');
    const b = await AdvisoryPresence.hold(url, 'test');
    try {
      expect(await b.isGone(a.id)).toBe(false);
      // The server restarted, say: a's connection is gone, and with it its lock.
      await proxy.cut();
      await proxy.restore();
      await waitFor(async () => !(await b.isGone(a.id)));
      // a probes again on its new connection rather than failing on the dead one.
      expect(await a.isGone(b.id)).toBe(false);
      const c = await AdvisoryPresence.hold(url, 'test');
      expect(await a.isGone(c.id)).toBe(false);
      await c.close();
      expect(await a.isGone(c.id)).toBe(true);
    } finally {
      await a.close();
      await b.close();
      await proxy.close();
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

/** Polls `ready` every 50 ms for up to 10 s. */
async function waitFor(ready: () => Promise<boolean>): Promise<void> {
  for (const until = Date.now() + 10_000; !(await ready());) {
    if (Date.now() > until) throw new Error('not within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
