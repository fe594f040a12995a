import type { IncomingMessage, ServerResponse } from 'node:http';
import { createLogger, createMetrics } from '@svc/envelope';
import request from 'supertest';
import { fromDatabaseError } from '../src/db/pg-errors.js';
import { KnownRecipients } from '../src/messages/known-recipients.js';
import { inboxHandler } from '../src/messages/message.handlers.js';
import { inboxLane } from '../src/messages/message.lanes.js';
import { MessageService } from '../src/messages/message.service.js';
import { authLines, signedAuthValue, unixNow } from '../src/client/index.js';
import { registerHandle, uniqueHandle, type RegisteredHandle } from './handle-factories.js';
import { createTestApp, SETUP_TIMEOUT_MS, type TestApp } from './test-app.js';

// Plain `GET /v1/inbox/{handle}` is answered ahead of Express (src/messages/message.lanes.ts);
// a trailing slash sends the same request through the Express route. Every answer must match.
const lanePath = (handle: string) => `/v1/inbox/${handle}`;
const expressPath = (handle: string) => `/v1/inbox/${handle}/`;

let t: TestApp;
let alice: RegisteredHandle;
let mallory: RegisteredHandle;
const seqs: number[] = [];
beforeAll(async () => {
  t = await createTestApp('inbox_lane');
  alice = await registerHandle(t.app, t.config.server);
  mallory = await registerHandle(t.app, t.config.server);
  for (const envelope of [{ n: 1 }, 'two', [3, { deep: 'é' }], null, 5]) {
    const res = await request(t.app).post('/v1/messages').send({ to: alice.handle, envelope });
    seqs.push((res.body as { seq: number }).seq);
  }
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  await t.close();
}, SETUP_TIMEOUT_MS);

interface Answer {
  status: number;
  type: string | undefined;
  text: string;
}

async function both(
  handle: string,
  query: string,
  auth: string | undefined,
): Promise<[Answer, Answer]> {
  const answers: Answer[] = [];
  for (const path of [lanePath(handle), expressPath(handle)]) {
    const req = request(t.app).get(`${path}${query}`);
    if (auth !== undefined) req.set('X-ID-Auth', auth);
    const res = await req;
    answers.push({ status: res.status, type: res.headers['content-type'], text: res.text });
  }
  return [answers[0]!, answers[1]!];
}

const signed = (owner: RegisteredHandle, handle: string, since: number, at?: number) =>
  signedAuthValue(owner.keys.secretKey, authLines.inbox(handle, since), at);

describe('the inbox lane and the Express route', () => {
  it('answer a page byte for byte alike, envelopes as sent', async () => {
    const [lane, express] = await both(alice.handle, '', signed(alice, alice.handle, 0));
    expect(lane).toEqual(express);
    expect(lane.status).toBe(200);
    expect(lane.type).toBe('application/json; charset=utf-8');
    const page = JSON.parse(lane.text) as { messages: { seq: number; envelope: unknown }[] };
    expect(page.messages.map((m) => [m.seq, m.envelope])).toEqual([
      [seqs[0], { n: 1 }],
      [seqs[1], 'two'],
      [seqs[2], [3, { deep: 'é' }]],
      [seqs[3], null],
      [seqs[4], 5],
    ]);
  });

  it.each([
    ['a middle page', (s: number[]) => `?since=${s[0]}&limit=2`, (s: number[]) => s[0]!],
    ['the exact last page', (s: number[]) => `?since=${s[2]}&limit=2`, (s: number[]) => s[2]!],
    ['an empty page', (s: number[]) => `?since=${s[4]}`, (s: number[]) => s[4]!],
    ['since with leading zeros', () => '?since=000&limit=0003', () => 0],
  ])('answer %s alike', async (_name, query, since) => {
    const auth = signed(alice, alice.handle, since(seqs));
    const [lane, express] = await both(alice.handle, query(seqs), auth);
    expect(lane.status).toBe(200);
    expect(lane).toEqual(express);
  });

  it('fold the handle’s case alike', async () => {
    const upper = alice.handle.toUpperCase();
    const [lane, express] = await both(upper, '', signed(alice, alice.handle, 0));
    expect(lane.status).toBe(200);
    expect(lane).toEqual(express);
  });

  it('take a signature over the path as spelled alike', async () => {
    const upper = alice.handle.toUpperCase();
    const [lane, express] = await both(upper, '', signed(alice, upper, 0));
    expect(lane.status).toBe(200);
    expect(lane).toEqual(express);
    expect(lane).toEqual((await both(alice.handle, '', signed(alice, alice.handle, 0)))[0]);
  });

  it.each([
    ['a malformed since', '?since=-1', 'own'],
    ['a repeated since', '?since=1&since=2', 'own'],
    ['a limit out of range', '?limit=501', 'own'],
    ['no auth header', '', 'none'],
    ['another key’s signature', '', 'mallory'],
    ['a stale signature', '', 'stale'],
    ['a signature for another since', '?since=1', 'own'],
  ])('answer %s with the same error', async (_name, query, who) => {
    const auth = {
      own: signed(alice, alice.handle, 0),
      none: undefined,
      mallory: signed(mallory, alice.handle, 0),
      stale: signed(alice, alice.handle, 0, unixNow() - 90),
    }[who];
    const [lane, express] = await both(alice.handle, query, auth);
    expect(lane.status).toBeGreaterThanOrEqual(400);
    expect(lane).toEqual(express);
  });

  it('answer an unknown, a short and a reserved handle with the same error', async () => {
    for (const [handle, status] of [
      [uniqueHandle('ghost'), 404],
      ['ab', 400],
      ['admin', 400],
    ] as const) {
      const [lane, express] = await both(handle, '', signed(alice, handle, 0));
      expect(lane.status).toBe(status);
      expect(lane).toEqual(express);
    }
  });

  it('count both under the route pattern in the metrics', async () => {
    await both(alice.handle, '', signed(alice, alice.handle, 0));
    const metrics = (await request(t.app).get('/metrics').expect(200)).text;
    expect(metrics).toMatch(
      /handle_relay_http_request_duration_seconds_count\{method="GET",route="\/v1\/inbox\/:handle",status="200"\} \d+/,
    );
  });
});

describe('the inbox lane', () => {
  /** The lane alone, in front of a fallback that answers 418 for what it leaves. */
  const laneOnly = () => {
    const messages = new MessageService({
      db: t.store.db,
      now: Date.now,
      server: t.config.server,
      notifier: t.relay.push,
      writer: t.relay.writer,
      knownRecipients: new KnownRecipients(),
    });
    const lane = inboxLane({
      handlers: {
        send: () => Promise.reject(new Error('not a send')),
        inbox: inboxHandler(messages),
      },
      translate: fromDatabaseError,
      logger: createLogger('inbox-lane-test', 'silent'),
      metrics: createMetrics('inbox_lane_test'),
    });
    return (req: IncomingMessage, res: ServerResponse) => {
      if (lane(req, res)) return;
      res.statusCode = 418;
      res.end();
    };
  };

  it('takes only a GET of the plain path, with or without a query', async () => {
    const listener = laneOnly();
    const auth = signed(alice, alice.handle, 0);
    await request(listener).get(lanePath(alice.handle)).set('X-ID-Auth', auth).expect(200);
    await request(listener)
      .get(`${lanePath(alice.handle)}?since=0`)
      .set('X-ID-Auth', auth)
      .expect(200);
    await request(listener)
      .get(`${lanePath(alice.handle)}?since=x`)
      .expect(400);
    const encoded = `%${alice.handle.charCodeAt(0).toString(16)}${alice.handle.slice(1)}`;
    for (const path of [
      expressPath(alice.handle),
      `/V1/inbox/${alice.handle}`,
      `/v1/inbox/${encoded}`,
      `/v1/inbox/${alice.handle}/stream`,
      '/v1/inbox/',
    ]) {
      await request(listener).get(path).set('X-ID-Auth', auth).expect(418);
    }
    await request(listener).head(lanePath(alice.handle)).set('X-ID-Auth', auth).expect(418);
    await request(listener).post(lanePath(alice.handle)).expect(418);
  });
});
