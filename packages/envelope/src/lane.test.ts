import type { IncomingMessage, ServerResponse } from 'node:http';
import { pino } from 'pino';
import request from 'supertest';
import { handleRelayError } from './envelopes.js';
import { errors } from './errors.js';
import { jsonLane } from './lane.js';
import { JsonText } from './middleware.js';
import { createMetrics } from './observability.js';

type LogLine = Record<string, unknown>;

/** A lane for `POST /fast` in front of a fallback that answers 418 for everything else. */
function buildServer(
  lines: LogLine[],
  answer: (req: IncomingMessage) => Promise<[number, unknown]>,
) {
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) },
  );
  const metrics = createMetrics('lane_test');
  const lane = jsonLane({
    takes: (req) => req.method === 'POST' && req.url === '/fast',
    route: '/fast',
    answer,
    render: handleRelayError,
    logger,
    metrics,
  });
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    if (lane(req, res)) return;
    res.statusCode = 418;
    res.end('fallback');
  };
  return { listener, metrics };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('jsonLane', () => {
  it('answers the requests it takes with JSON, a request id, a log line and a metric', async () => {
    const lines: LogLine[] = [];
    const { listener, metrics } = buildServer(lines, () => Promise.resolve([201, { ok: 1 }]));
    const res = await request(listener).post('/fast').set('X-Request-Id', 'lane-1').expect(201);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['x-request-id']).toBe('lane-1');
    expect(res.text).toBe('{"ok":1}');
    await settle();
    expect(lines).toEqual([
      expect.objectContaining({
        level: 30,
        req: { id: 'lane-1', method: 'POST', url: '/fast' },
        res: { statusCode: 201 },
        msg: 'request completed',
      }),
    ]);
    expect(await metrics.registry.metrics()).toMatch(
      /lane_test_http_request_duration_seconds_count\{method="POST",route="\/fast",status="201"\} 1/,
    );
  });

  it('sends a JsonText answer as it is, with its byte length', async () => {
    const text = '{"b": 2,  "a":"é"}';
    const { listener } = buildServer([], () => Promise.resolve([200, new JsonText(text)]));
    const res = await request(listener).post('/fast').expect(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(text)));
    expect(res.text).toBe(text);
  });

  it('leaves every other request to the fallback, untouched', async () => {
    const lines: LogLine[] = [];
    const { listener } = buildServer(lines, () => Promise.resolve([200, {}]));
    for (const res of [
      await request(listener).get('/fast'),
      await request(listener).post('/fast?x=1'),
      await request(listener).post('/other'),
    ]) {
      expect(res.status).toBe(418);
      expect(res.text).toBe('fallback');
      expect(res.headers['x-request-id']).toBeUndefined();
    }
    await settle();
    expect(lines).toEqual([]);
  });

  it('answers a thrown AppError in the envelope with its headers', async () => {
    const { listener } = buildServer([], () => {
      throw errors.methodNotAllowed(['GET']);
    });
    const res = await request(listener).post('/fast').expect(405);
    expect(res.headers.allow).toBe('GET');
    expect(res.body).toEqual({
      error: { code: 'method_not_allowed', message: expect.any(String) as string },
    });
  });

  it('answers an unexpected error as a bare 500 and puts it on the request line', async () => {
    const lines: LogLine[] = [];
    const { listener } = buildServer(lines, () => Promise.reject(new Error('disk on fire')));
    const res = await request(listener).post('/fast').expect(500);
    expect(res.body).toEqual({ error: { code: 'internal', message: 'internal error' } });
    await settle();
    expect(lines).toEqual([
      expect.objectContaining({
        level: 50,
        err: expect.objectContaining({ message: 'disk on fire' }) as unknown,
        msg: 'request errored',
      }),
    ]);
  });
});
