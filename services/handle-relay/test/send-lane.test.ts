import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { sql } from 'kysely';
import request from 'supertest';
import { SEND_BODY_LIMIT_BYTES } from '../src/messages/message.schemas.js';
import { registerHandle, type RegisteredHandle } from './handle-factories.js';
import { createTestApp, SETUP_TIMEOUT_MS, type TestApp } from './test-app.js';

// Plain `POST /v1/messages` is answered ahead of Express (src/messages/message.lanes.ts); a
// query string sends the same request through the Express route. Every answer must match.
const LANE = '/v1/messages';
const EXPRESS = '/v1/messages?via=express';

let t: TestApp;
let bob: RegisteredHandle;
beforeAll(async () => {
  t = await createTestApp('send_lane');
  bob = await registerHandle(t.app, t.config.server);
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  await t.close();
}, SETUP_TIMEOUT_MS);

async function storedEnvelopes(): Promise<string[]> {
  const { rows } = await sql<{ envelope: string }>`
    select envelope from handle_relay.message where recipient = ${bob.handle} order by seq
  `.execute(t.store.db);
  return rows.map((r) => r.envelope);
}

/** Writes a request byte for byte, so headers are exactly the test's; answers status + body. */
async function rawPost(
  path: string,
  head: string[],
  body: string | Buffer = '',
): Promise<[number, unknown]> {
  const server = http.createServer(t.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const text = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      let answer = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (answer += chunk));
      socket.on('end', () => resolve(answer));
      socket.on('error', reject);
      const lines = [`POST ${path} HTTP/1.1`, 'Host: relay.test', 'Connection: close', ...head];
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      socket.write(body);
    });
    const [status = '0'] = /^HTTP\/1\.1 (\d{3})/.exec(text)?.slice(1) ?? [];
    return [Number(status), JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as unknown];
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('POST /v1/messages ahead of Express', () => {
  it.each([
    ['an object with a byte order mark', '\ufeff{"to":"BOB","envelope":1}', 201],
    ['leading JSON whitespace', ' \t\r\n{"to":"BOB","envelope":2}', 201],
    ['a bare JSON string', '"text"', 400],
    ['a bare number', '42', 400],
    ['whitespace only', '   ', 400],
    ['truncated JSON', '{"to":', 400],
    ['an array', '[1,2]', 400],
    ['an empty body', '', 400],
    ['an unknown recipient', '{"to":"nobody-here","envelope":1}', 404],
  ])('answers %s exactly as the Express route does', async (_name, template, status) => {
    const body = template.replace('BOB', bob.handle);
    const answers = [];
    for (const path of [LANE, EXPRESS]) {
      const res = await request(t.app).post(path).set('Content-Type', 'text/plain').send(body);
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      answers.push(status === 201 ? Object.keys(res.body as object).sort() : res.body);
    }
    expect(answers[0]).toEqual(answers[1]);
    if (status === 201) expect(answers[0]).toEqual(['created_at', 'seq']);
  });

  it('answers a body-less request as Express does: 400 body must be a JSON object', async () => {
    for (const path of [LANE, EXPRESS]) {
      expect(await rawPost(path, [])).toEqual([
        400,
        { error: { code: 'bad_request', message: 'body must be a JSON object' } },
      ]);
    }
  });

  it('reads a chunked body and refuses one past the body limit, declared or streamed, with 413', async () => {
    const before = await storedEnvelopes();
    const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
    const json = JSON.stringify({ to: bob.handle, envelope: 'chunked' });
    expect(
      await rawPost(
        LANE,
        ['Transfer-Encoding: chunked'],
        chunk(json.slice(0, 9)) + chunk(json.slice(9)) + '0\r\n\r\n',
      ),
    ).toEqual([201, expect.objectContaining({ seq: expect.any(Number) as number })]);
    const tooLarge = [
      413,
      { error: { code: 'payload_too_large', message: 'request body too large' } },
    ];
    const big = JSON.stringify({ to: bob.handle, envelope: 'x'.repeat(SEND_BODY_LIMIT_BYTES) });
    for (const path of [LANE, EXPRESS]) {
      expect(await rawPost(path, [`Content-Length: ${big.length}`], big)).toEqual(tooLarge);
      expect(await rawPost(path, ['Transfer-Encoding: chunked'], chunk(big) + '0\r\n\r\n')).toEqual(
        tooLarge,
      );
    }
    expect(await storedEnvelopes()).toEqual([...before, '"chunked"']);
  });

  it('hands compressed bodies and other charsets to Express, which inflates or refuses them', async () => {
    const before = await storedEnvelopes();
    const json = JSON.stringify({ to: bob.handle, envelope: 'gzipped' });
    const gzipped = gzipSync(json);
    expect(
      await rawPost(
        LANE,
        [
          'Content-Type: application/json',
          'Content-Encoding: gzip',
          `Content-Length: ${gzipped.length}`,
        ],
        gzipped,
      ),
    ).toEqual([201, expect.objectContaining({ seq: expect.any(Number) as number })]);
    await request(t.app)
      .post(LANE)
      .set('Content-Type', 'application/json; charset="UTF-8"')
      .send(JSON.stringify({ to: bob.handle, envelope: 'utf-8' }))
      .expect(201);
    const res = await request(t.app)
      .post(LANE)
      .set('Content-Type', 'application/json; charset=latin1')
      .send(json)
      .expect(415);
    expect(res.body).toEqual({
      error: { code: 'unsupported_media_type', message: 'unsupported body encoding' },
    });
    expect(await storedEnvelopes()).toEqual([...before, '"gzipped"', '"utf-8"']);
  });

  it.each([LANE, EXPRESS])(
    'refuses an envelope holding bytes that are not UTF-8 with 400 naming the field (%s)',
    async (path) => {
      const before = await storedEnvelopes();
      const body = Buffer.concat([
        Buffer.from(`{"to":"${bob.handle}","envelope":{"ct":"ab`),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('"}}'),
      ]);
      expect(
        await rawPost(
          path,
          ['Content-Type: application/json', `Content-Length: ${body.length}`],
          body,
        ),
      ).toEqual([
        400,
        { error: { code: 'bad_request', message: 'invalid envelope.ct: not valid UTF-8' } },
      ]);
      expect(await storedEnvelopes()).toEqual(before);
    },
  );

  it('echoes the request id and counts the send under its route in /metrics', async () => {
    const res = await request(t.app)
      .post(LANE)
      .set('X-Request-Id', 'lane-check-1')
      .send({ to: bob.handle, envelope: 'id' })
      .expect(201);
    expect(res.headers['x-request-id']).toBe('lane-check-1');
    const metrics = await request(t.app).get('/metrics').expect(200);
    expect(metrics.text).toMatch(
      /handle_relay_http_request_duration_seconds_count\{method="POST",route="\/v1\/messages",status="201"\} [1-9]\d*/,
    );
  });
});

describe('rate limit shared by the lane and the Express route', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await createTestApp('send_lane_limited', { rate_limit_per_minute: 60 });
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await limited.close();
  }, SETUP_TIMEOUT_MS);

  it('spends one budget per client address whichever way a send arrives', async () => {
    limited.clock.fixedMs = Date.now();
    const carol = await registerHandle(limited.app, limited.config.server);
    for (let i = 0; i < 60; i++) {
      await request(limited.app)
        .post(i % 2 === 0 ? LANE : EXPRESS)
        .send({ to: carol.handle, envelope: i })
        .expect(201);
    }
    for (const path of [LANE, EXPRESS]) {
      const res = await request(limited.app)
        .post(path)
        .send({ to: carol.handle, envelope: 'one too many' })
        .expect(429);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.body).toEqual({ error: { code: 'rate_limited', message: 'too many requests' } });
    }
  });
});
