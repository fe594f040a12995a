import { useDatabaseOutage } from '@svc/testing';
import request from 'supertest';
import { API_BASE } from '../src/api-base.js';
import { createTestApp } from './test-app.js';

// An outage needs a server to lose; the embedded database cannot go away under the process.
const outage = useDatabaseOutage((proxy) => createTestApp('outage', {}, { proxy }));
const { describeOnServer } = outage;

const hash = 'a'.repeat(64);

describeOnServer('while the database is down', () => {
  it('answers requests that need it with 503 and Retry-After, and recovers alone', async () => {
    await request(outage.app().app).get('/healthz').expect(200);
    await request(outage.app().app).get(`${API_BASE}/asset/${hash}/meta`).expect(404);
    await request(outage.app().app).get('/metrics').expect(200);
    await outage.proxy().cut();
    try {
      const answers = await Promise.all([
        ...Array.from({ length: 20 }, () =>
          request(outage.app().app).get(`${API_BASE}/asset/${hash}/meta`),
        ),
        ...Array.from({ length: 10 }, () => request(outage.app().app).get(`${API_BASE}/list`)),
        ...Array.from({ length: 10 }, (_, i) =>
          request(outage.app().app)
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
      await request(outage.app().app).get('/healthz').expect(503);
      // Metrics still answer: the index's gauges keep their last values.
      const metrics = await request(outage.app().app).get('/metrics').expect(200);
      expect(metrics.text).toContain('asset_store_assets{trashed="false",corrupted="false"} 0');
    } finally {
      await outage.proxy().restore();
    }
    await request(outage.app().app).get('/healthz').expect(200);
    await request(outage.app().app).get(`${API_BASE}/asset/${hash}/meta`).expect(404);
    await request(outage.app().app)
      .post(`${API_BASE}/ingest/data`)
      .send({ data: { after: true } })
      .expect(200);
  }, 60_000);
});
