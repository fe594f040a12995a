import request from 'supertest';
import { ingestFile } from './asset-helpers.js';
import { createTestApp, type TestApp } from './test-app.js';

let open: TestApp;
let t: TestApp;
beforeAll(async () => {
  open = await createTestApp('api_token_unset');
  t = await createTestApp('api_token', { api_token: 'data-secret', admin_token: 'admin-secret' });
});
afterAll(async () => {
  await Promise.all([open.close(), t.close()]);
});

const BASE = '/api/v1/can/0';
const unauthorized = { status: 'error', error: 'missing or invalid API token' };

describe('api_token', () => {
  it('refuses every data endpoint without the token: 401, WWW-Authenticate: Bearer', async () => {
    const { hash } = await ingestFile(open.app, 'x', 'x.txt');
    const calls = [
      request(t.app).post(`${BASE}/ingest`).attach('file', Buffer.from('x'), 'x.txt'),
      request(t.app).post(`${BASE}/ingest/`).attach('file', Buffer.from('x'), 'x.txt'),
      request(t.app).post(`${BASE}/ingest/data`).send({ data: 1 }),
      request(t.app).get(`${BASE}/asset/${hash}`),
      request(t.app).get(`${BASE}/asset/${hash}/meta`),
      request(t.app).get(`${BASE}/asset/${hash}/thumb/10/10`),
      request(t.app).get(`${BASE}/list`),
      request(t.app).get(`${BASE}/search`),
      request(t.app).get(`${BASE}/no-such-route`),
      request(t.app).get(`${BASE}/list`).set('Authorization', 'Bearer wrong'),
      request(t.app).get(`${BASE}/list`).set('Authorization', 'Basic data-secret'),
    ];
    for (const res of await Promise.all(calls)) {
      expect([res.status, res.body]).toEqual([401, unauthorized]);
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it('accepts the API token and the admin token, on the fast ingest path too', async () => {
    const stored = await request(t.app)
      .post(`${BASE}/ingest`)
      .set('Authorization', 'Bearer data-secret')
      .attach('file', Buffer.from('allowed'), 'a.txt')
      .expect(200);
    const { hash } = (stored.body as { data: { hash: string } }).data;
    const res = await request(t.app)
      .get(`${BASE}/asset/${hash}`)
      .set('Authorization', 'bearer admin-secret')
      .expect(200);
    expect(res.text).toBe('allowed');
    await request(t.app).get(`${BASE}/list`).set('Authorization', 'Bearer data-secret').expect(200);
  });

  it('leaves the admin endpoints to the admin token alone', async () => {
    const res = await request(t.app)
      .post(`${BASE}/admin/verify`)
      .set('Authorization', 'Bearer data-secret')
      .expect(401);
    expect(res.body).toEqual({ status: 'error', error: 'missing or invalid admin token' });
    await request(t.app)
      .post(`${BASE}/admin/verify`)
      .set('Authorization', 'Bearer admin-secret')
      .expect(200);
  });

  it('keeps health, metrics and the OpenAPI document open', async () => {
    await request(t.app).get('/healthz').expect(200);
    await request(t.app).get('/metrics').expect(200);
    await request(t.app).get('/openapi.json').expect(200);
  });

  it('is unset by default: the data endpoints are open', async () => {
    await request(open.app).get(`${BASE}/list`).expect(200);
  });
});
