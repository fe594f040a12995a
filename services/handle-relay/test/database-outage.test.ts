import { TcpProxy, testDatabaseMode } from '@svc/testing';
import request from 'supertest';
import { createTestApp, SETUP_TIMEOUT_MS, type TestApp } from './test-app.js';

// An outage needs a server to lose; the embedded database cannot go away under the process.
const onServer = testDatabaseMode() === 'postgres';
const describeOnServer = onServer ? describe : describe.skip;

let t: TestApp;
let proxy: TcpProxy;
beforeAll(async () => {
  if (!onServer) return;
  const url = new URL(process.env.TEST_DATABASE_URL!);
  proxy = await TcpProxy.start(url.hostname, Number(url.port || 5432));
  t = await createTestApp('outage', {}, { proxy });
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  if (!onServer) return;
  await proxy.restore();
  await t.close();
  await proxy.close();
}, SETUP_TIMEOUT_MS);

describeOnServer('while the database is down', () => {
  it('health is 503 and lookups get 503 with Retry-After; both recover alone', async () => {
    await request(t.app).get('/v1/healthz').expect(200);
    await request(t.app).get('/v1/u/nobody').expect(404);
    await proxy.cut();
    try {
      const health = await request(t.app).get('/v1/healthz').expect(503);
      expect(health.body).toEqual({
        error: { code: 'unavailable', message: 'database unreachable' },
      });
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) => request(t.app).get(`/v1/u/nobody${i}`)),
      );
      for (const res of answers) {
        expect(res.status).toBe(503);
        expect(res.headers['retry-after']).toBe('5');
        expect(res.body).toEqual({
          error: {
            code: 'unavailable',
            message: 'the database is unavailable: try again shortly',
          },
        });
      }
    } finally {
      await proxy.restore();
    }
    await request(t.app).get('/v1/healthz').expect(200);
    await request(t.app).get('/v1/u/nobody').expect(404);
  }, 60_000);
});
