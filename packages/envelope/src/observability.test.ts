import express from 'express';
import { pino } from 'pino';
import request from 'supertest';
import { createMetrics, requestLogging } from './observability.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function buildApp(lines: Record<string, unknown>[]) {
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const metrics = createMetrics('test_svc');
  const app = express();
  app.use(requestLogging(logger));
  app.use(metrics.middleware);
  app.get('/metrics', metrics.handler);
  app.get('/items/:id', (_req, res) => {
    res.json({ ok: true });
  });
  return app;
}

describe('request logging', () => {
  it('echoes a sane X-Request-Id and logs one line carrying it', async () => {
    const lines: Record<string, unknown>[] = [];
    const res = await request(buildApp(lines)).get('/items/1').set('X-Request-Id', 'abc.DEF:1-2_3');
    expect(res.headers['x-request-id']).toBe('abc.DEF:1-2_3');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      msg: 'request completed',
      req: { id: 'abc.DEF:1-2_3', method: 'GET', url: '/items/1' },
      res: { statusCode: 200 },
    });
  });

  it.each([
    ['spaces', 'has spaces'],
    ['markup', '<script>'],
    ['over 128 characters', 'x'.repeat(129)],
  ])('replaces a client id with %s by a fresh UUID', async (_label, id) => {
    const res = await request(buildApp([])).get('/items/1').set('X-Request-Id', id);
    expect(res.headers['x-request-id']).toMatch(UUID);
  });

  it('generates a UUID when the client sends none', async () => {
    const res = await request(buildApp([])).get('/items/1');
    expect(res.headers['x-request-id']).toMatch(UUID);
  });
});

describe('metrics', () => {
  it('counts requests by route pattern, and unmatched ones apart', async () => {
    const app = buildApp([]);
    await request(app).get('/items/1');
    await request(app).get('/items/2');
    await request(app).get('/nowhere');
    const res = await request(app).get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toMatch(
      /^test_svc_http_request_duration_seconds_count\{method="GET",route="\/items\/:id",status="200"\} 2$/m,
    );
    expect(res.text).toMatch(
      /^test_svc_http_request_duration_seconds_count\{method="GET",route="unmatched",status="404"\} 1$/m,
    );
    expect(res.text).toContain('test_svc_process_cpu_seconds_total');
  });
});
