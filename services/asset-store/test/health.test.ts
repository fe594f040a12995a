import { sql } from 'kysely';
import request from 'supertest';
import { useTestApp } from './test-app.js';

const t = useTestApp('health');

describe('health and the shared HTTP edge', () => {
  it('answers GET /healthz with status ok and the version', async () => {
    const res = await request(t.app).get('/healthz').expect(200);
    expect(res.body).toEqual({ status: 'success', data: { status: 'ok', version: '0.1.0' } });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('echoes a given X-Request-Id and generates one when absent', async () => {
    const given = await request(t.app).get('/healthz').set('X-Request-Id', 'abc-123');
    expect(given.headers['x-request-id']).toBe('abc-123');
    const generated = await request(t.app).get('/healthz');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers an unknown route with 404 in the error envelope', async () => {
    const res = await request(t.app).get('/nope').expect(404);
    expect(res.body).toEqual({ status: 'error', error: 'no such route' });
  });

  it('serves Prometheus metrics', async () => {
    await request(t.app).get('/healthz');
    const res = await request(t.app).get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toMatch(
      /asset_store_http_request_duration_seconds_count\{[^}]*route="\/healthz"/,
    );
  });

  it.each([
    ['POST', '/healthz'],
    ['DELETE', '/metrics'],
  ])('answers %s %s with 405 and an Allow header', async (method, p) => {
    const res = await request(t.app)[method === 'POST' ? 'post' : 'delete'](p).expect(405);
    expect(res.body).toEqual({ status: 'error', error: 'method not allowed' });
    expect(res.headers.allow).toBe('GET');
  });

  it('migrated the index into the asset_store schema', async () => {
    const { rows } = await sql<{ table_schema: string }>`
      select table_schema from information_schema.tables where table_name = 'asset'
    `.execute(t.index.db);
    expect(rows).toEqual([{ table_schema: 'asset_store' }]);
  });
});
