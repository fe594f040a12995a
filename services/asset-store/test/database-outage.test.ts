import { TcpProxy, testDatabaseMode } from '@svc/testing';
import request from 'supertest';
import { API_BASE } from '../src/api-base.js';
import { createTestApp, type TestApp } from './test-app.js';

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
}, 60_000);
afterAll(async () => {
  if (!onServer) return;
  await proxy.restore();
  await t.close();
  await proxy.close();
}, 60_000);

const hash = 'a'.repeat(64);

describeOnServer('while the database is down', () => {
  it('answers requests that need it with 503 and Retry-After, and recovers alone', async () => {
    await request(t.app).get('/healthz').expect(200);
    await request(t.app).get(`${API_BASE}/asset/${hash}/meta`).expect(404);
    await proxy.cut();
    try {
      const answers = await Promise.all([
        ...Array.from({ length: 20 }, () => request(t.app).get(`${API_BASE}/asset/${hash}/meta`)),
        ...Array.from({ length: 10 }, () => request(t.app).get(`${API_BASE}/list`)),
        ...Array.from({ length: 10 }, (_, i) =>
          request(t.app)
            .post(`${API_BASE}/ingest/data`)
            .send({ data: { outage: i } }),
        ),
      ]);
      for (const res of answers) {
        expect(res.status).toBe(503);
        expect(res.headers['retry-after']).toBe('5');
        expect(res.body).toEqual({
          status: 'error',
          error: 'the database is unavailable: try again shortly',
        });
      }
      await request(t.app).get('/healthz').expect(503);
    } finally {
      await proxy.restore();
    }
    await request(t.app).get('/healthz').expect(200);
    await request(t.app).get(`${API_BASE}/asset/${hash}/meta`).expect(404);
    await request(t.app)
      .post(`${API_BASE}/ingest/data`)
      .send({ data: { after: true } })
      .expect(200);
  }, 60_000);
});
