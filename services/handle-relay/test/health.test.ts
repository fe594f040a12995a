import { sql } from 'kysely';
import request from 'supertest';
import { useTestApp } from './test-app.js';

const t = useTestApp('health');

describe('health and the shared HTTP edge', () => {
  it('answers GET /v1/healthz with status, server, version and the log key', async () => {
    const res = await request(t.app).get('/v1/healthz').expect(200);
    expect(res.body).toEqual({
      status: 'ok',
      server: 'relay.test',
      version: '0.1.0',
      log_key: expect.stringMatching(/^ed25519:[0-9a-f]{64}$/) as string,
    });
  });

  it('answers an unknown /v1 route with a JSON not_found envelope', async () => {
    const res = await request(t.app).get('/v1/nothing-here').expect(404);
    expect(res.body).toEqual({ error: { code: 'not_found', message: 'no such route' } });
  });

  it.each(['/v1/healthz', '/metrics'])(
    'answers another method on %s with 405 and Allow',
    async (p) => {
      const res = await request(t.app).post(p).expect(405);
      expect(res.headers.allow).toBe('GET');
      expect(res.body).toEqual({
        error: { code: 'method_not_allowed', message: 'method not allowed' },
      });
    },
  );

  it('answers a path with broken percent-encoding with 400, not 500', async () => {
    const res = await request(t.app).get('/v1/u/%E0%A4%A').expect(400);
    expect(res.body).toEqual({
      error: { code: 'bad_request', message: 'malformed percent-encoding in the path' },
    });
  });

  it('echoes a given X-Request-Id', async () => {
    const res = await request(t.app).get('/v1/healthz').set('X-Request-Id', 'req-42');
    expect(res.headers['x-request-id']).toBe('req-42');
  });

  it('migrated the store into the handle_relay schema', async () => {
    const { rows } = await sql<{ table_schema: string }>`
      select table_schema from information_schema.tables where table_name = 'handle'
    `.execute(t.store.db);
    expect(rows).toEqual([{ table_schema: 'handle_relay' }]);
  });
});
