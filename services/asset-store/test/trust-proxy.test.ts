import { pino } from 'pino';
import request from 'supertest';
import type { App } from '../src/app.js';
import { createTestApp, variantApp, type TestApp } from './test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp('trust_proxy');
});
afterAll(async () => {
  await t.close();
});

type LogLine = { req?: { url: string; remoteAddress?: string } };

function appLogging(lines: LogLine[], trustProxy: unknown): App {
  return variantApp(t, {
    config: { trust_proxy: trustProxy },
    logger: pino(
      { level: 'info' },
      { write: (l: string) => void lines.push(JSON.parse(l) as LogLine) },
    ),
  }).app;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('trust_proxy', () => {
  it('logs the forwarded client on the fast ingest path and on Express routes alike', async () => {
    const lines: LogLine[] = [];
    const app = appLogging(lines, 'loopback');
    await request(app)
      .post('/api/v1/can/0/ingest')
      .set('X-Forwarded-For', '203.0.113.9')
      .attach('file', Buffer.from('proxied'), 'a.txt')
      .expect(200);
    await request(app)
      .get('/api/v1/can/0/list')
      .set('X-Forwarded-For', '198.51.100.1, 203.0.113.10')
      .expect(200);
    await settle();
    expect(lines.map((l) => [l.req?.url, l.req?.remoteAddress])).toEqual([
      ['/api/v1/can/0/ingest', '203.0.113.9'],
      ['/api/v1/can/0/list', '203.0.113.10'],
    ]);
  });

  it('by default logs the peer, whatever X-Forwarded-For says', async () => {
    const lines: LogLine[] = [];
    await request(appLogging(lines, false))
      .get('/healthz')
      .set('X-Forwarded-For', '203.0.113.9')
      .expect(200);
    await settle();
    expect(lines[0]?.req?.remoteAddress).toMatch(/127\.0\.0\.1|::1/);
  });
});
