import { useDatabaseOutage } from '@svc/testing';
import request from 'supertest';
import { createTestApp, SETUP_TIMEOUT_MS } from './test-app.js';

// An outage needs a server to lose; the embedded database cannot go away under the process.
const outage = useDatabaseOutage(
  (proxy) => createTestApp('outage', {}, { proxy }),
  SETUP_TIMEOUT_MS,
);
const { describeOnServer } = outage;

describeOnServer('while the database is down', () => {
  it('health is 503 and lookups get 503 with Retry-After; both recover alone', async () => {
    await request(outage.app().app).get('/v1/healthz').expect(200);
    await request(outage.app().app).get('/v1/u/nobody').expect(404);
    await outage.proxy().cut();
    try {
      const health = await request(outage.app().app).get('/v1/healthz').expect(503);
      expect(health.body).toEqual({
        error: { code: 'unavailable', message: 'database unreachable' },
      });
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) => request(outage.app().app).get(`/v1/u/nobody${i}`)),
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
      await outage.proxy().restore();
    }
    await request(outage.app().app).get('/v1/healthz').expect(200);
    await request(outage.app().app).get('/v1/u/nobody').expect(404);
  }, 60_000);
});
