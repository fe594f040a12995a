import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { pino } from 'pino';
import request from 'supertest';
import { requestLogging } from './request-logging.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type LogLine = Record<string, unknown>;

function buildApp(lines: LogLine[], level = 'info') {
  const logger = pino(
    { level },
    { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) },
  );
  const app = express();
  app.use(requestLogging(logger));
  app.get('/items/:id', (_req, res) => {
    res.json({ ok: true });
  });
  app.get('/unavailable', (_req, res) => {
    res.status(503).json({ ok: false });
  });
  app.get('/not-implemented', (_req, res) => {
    res.status(501).json({ ok: false });
  });
  app.get('/hang', () => undefined);
  return app;
}

/** Lets the response's 'close' listener (the log line) run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('request logging', () => {
  it('echoes a sane X-Request-Id and logs one info line carrying it', async () => {
    const lines: LogLine[] = [];
    const res = await request(buildApp(lines))
      .get('/items/1?x=1')
      .set('X-Request-Id', 'abc.DEF:1-2_3');
    expect(res.headers['x-request-id']).toBe('abc.DEF:1-2_3');
    await settle();
    expect(lines).toEqual([
      {
        level: 30,
        time: expect.any(Number) as number,
        pid: process.pid,
        hostname: expect.any(String) as string,
        req: { id: 'abc.DEF:1-2_3', method: 'GET', url: '/items/1?x=1' },
        res: { statusCode: 200 },
        responseTime: expect.any(Number) as number,
        msg: 'request completed',
      },
    ]);
  });

  it('redacts credentials carried in the query (auth, token, access_token) on the log line', async () => {
    const lines: LogLine[] = [];
    await request(buildApp(lines))
      .get(
        '/items/1?since=5&auth=1700000000:abcdef&Token=secret&x=1&access_token=t&%61uth=a' +
          '&a%75th=b&%74oken=c&access%5Ftoken=d&tok%65n&authx=e#f',
      )
      .expect(200);
    await settle();
    expect(lines).toEqual([
      expect.objectContaining({
        req: {
          id: expect.any(String) as string,
          method: 'GET',
          url:
            '/items/1?since=5&auth=[redacted]&Token=[redacted]&x=1&access_token=[redacted]' +
            '&%61uth=[redacted]&a%75th=[redacted]&%74oken=[redacted]&access%5Ftoken=[redacted]' +
            '&tok%65n&authx=e',
        },
      }),
    ]);
  });

  it.each([
    ['spaces', 'has spaces'],
    ['markup', '<script>'],
    ['over 128 characters', 'x'.repeat(129)],
  ])('replaces a client id with %s by a fresh UUID', async (_label, id) => {
    const lines: LogLine[] = [];
    const res = await request(buildApp(lines)).get('/items/1').set('X-Request-Id', id);
    expect(res.headers['x-request-id']).toMatch(UUID);
    await settle();
    expect(lines[0]?.req).toEqual({
      id: res.headers['x-request-id'],
      method: 'GET',
      url: '/items/1',
    });
  });

  it('generates a UUID when the client sends none', async () => {
    const res = await request(buildApp([])).get('/items/1');
    expect(res.headers['x-request-id']).toMatch(UUID);
  });

  it('logs a 5xx answer as an error line carrying an error', async () => {
    const lines: LogLine[] = [];
    await request(buildApp(lines)).get('/unavailable').expect(503);
    await settle();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 50,
      msg: 'request errored',
      res: { statusCode: 503 },
      err: { message: 'failed with status code 503' },
    });
  });

  it('logs a documented 501 as a warning without an error or stack', async () => {
    const lines: LogLine[] = [];
    await request(buildApp(lines)).get('/not-implemented').expect(501);
    await settle();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 40,
      msg: 'request completed',
      res: { statusCode: 501 },
    });
    expect(lines[0]).not.toHaveProperty('err');
  });

  it('logs a request the client gave up on as aborted', async () => {
    const lines: LogLine[] = [];
    const server = http.createServer(buildApp(lines));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const client = http.get({ port, host: '127.0.0.1', path: '/hang' });
    client.on('error', () => undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
    client.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => server.close(resolve));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 30, msg: 'request aborted', req: { url: '/hang' } });
  });

  it('still echoes the id but writes nothing when the level is off', async () => {
    const lines: LogLine[] = [];
    const res = await request(buildApp(lines, 'silent')).get('/unavailable').expect(503);
    expect(res.headers['x-request-id']).toMatch(UUID);
    await settle();
    expect(lines).toEqual([]);
  });
});
