import { randomBytes } from 'node:crypto';
import { describeS3, TcpProxy } from '@svc/testing';
import request from 'supertest';
import { ingestFile } from './asset-helpers.js';
import { createTestApp, useS3Blobs, type TestApp } from './test-app.js';

const BASE = '/api/v1/can/0';

describeS3('asset-store on S3 whose gateway hangs (accepts, never answers)', (s3) => {
  let gateway: TcpProxy;
  let t: TestApp;
  let endpoint: string;
  beforeAll(async () => {
    const target = new URL(s3.endpoint);
    gateway = await TcpProxy.start(target.hostname, Number(target.port || 80));
    endpoint = gateway.rewrite(s3.endpoint).replace(/\/$/, '');
    useS3Blobs({ ...s3, endpoint });
    t = await createTestApp('s3_hang', { s3_timeout_seconds: 1 });
  }, 60_000);
  afterAll(async () => {
    await gateway.restore();
    await t.close();
    await gateway.close();
  }, 60_000);

  it('answers ingests and downloads 503 within its timeouts, health 503 saying so, and recovers', async () => {
    const before = await ingestFile(t.app, randomBytes(2000), 'before.bin');
    await request(t.app).get('/healthz').expect(200);
    gateway.silence();

    // Every S3 call ends: 1 s of silence, the SDK's three attempts, then the catalogue's 503.
    const started = Date.now();
    const during = await Promise.all([
      request(t.app).post(`${BASE}/ingest`).attach('file', randomBytes(3000), 'during.bin'),
      request(t.app).get(`${BASE}/asset/${before.hash}`),
    ]);
    expect(during.map((res) => [res.status, res.headers['retry-after']])).toEqual([
      [503, '5'],
      [503, '5'],
    ]);
    expect(Date.now() - started).toBeLessThan(20_000);
    const health = await request(t.app).get('/healthz');
    expect({ status: health.status, body: health.body as unknown }).toEqual({
      status: 503,
      body: {
        status: 'error',
        error: `storage unreachable: S3 at ${endpoint} (bucket ${t.bucket}) does not answer (timed out)`,
      },
    });

    await gateway.restore();
    const after = await ingestFile(t.app, randomBytes(2000), 'after.bin');
    await request(t.app).get(`${BASE}/asset/${after.hash}`).expect(200);
    await request(t.app).get('/healthz').expect(200);
  }, 60_000);
});
