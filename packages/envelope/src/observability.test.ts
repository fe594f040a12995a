import express from 'express';
import request from 'supertest';
import { createMetrics } from './observability.js';

function buildApp() {
  const metrics = createMetrics('test_svc');
  const app = express();
  app.use(metrics.middleware);
  app.get('/metrics', metrics.handler);
  app.get('/items/:id', (_req, res) => {
    res.json({ ok: true });
  });
  return app;
}

describe('metrics', () => {
  it('counts requests by route pattern, and unmatched ones apart', async () => {
    const app = buildApp();
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
    expect(res.text).toMatch(
      /^test_svc_http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/items\/:id",status="200"\} 2$/m,
    );
    const sum =
      /^test_svc_http_request_duration_seconds_sum\{method="GET",route="\/items\/:id",status="200"\} (\S+)$/m.exec(
        res.text,
      );
    expect(Number(sum?.[1])).toBeGreaterThan(0);
    expect(Number(sum?.[1])).toBeLessThan(10);
    expect(res.text).toContain('test_svc_process_cpu_seconds_total');
  });
});
