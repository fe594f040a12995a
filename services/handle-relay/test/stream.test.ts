import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { testDatabaseMode } from '@svc/testing';
import { createLogger } from '@svc/envelope';
import request from 'supertest';
import { createApp } from '../src/app.js';
import { authLines, signedAuthValue, unixNow } from '../src/client/index.js';
import { openStore } from '../src/db/database.js';
import { createRelayRuntime } from '../src/runtime.js';
import { registerHandle, uniqueHandle, type RegisteredHandle } from './handle-factories.js';
import { openSse, type SseClient } from './sse-client.js';
import { createTestApp, SETUP_TIMEOUT_MS, type TestApp } from './test-app.js';
import { waitFor } from './wait-for.js';

/** Streaming tests share the machine with other suites: room beyond Jest's 5 s default. */
const it = (name: string, fn: () => Promise<void>): void => globalThis.it(name, fn, 30_000);

const PING_MS = 200;
let t: TestApp;
let server: Server;
let baseUrl: string;
const clients: SseClient[] = [];

function listen(app: TestApp['app']): Promise<Server> {
  return new Promise((resolve) => {
    const s = http.createServer(app).listen(0, '127.0.0.1', () => resolve(s));
  });
}

function urlOf(s: Server): string {
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

async function stop(s: Server): Promise<void> {
  s.closeAllConnections();
  await new Promise((resolve) => s.close(resolve));
}

beforeAll(async () => {
  t = await createTestApp('stream', {}, { pingIntervalMs: PING_MS });
  server = await listen(t.app);
  baseUrl = urlOf(server);
}, SETUP_TIMEOUT_MS);
afterEach(() => {
  for (const c of clients.splice(0)) c.close();
});
afterAll(async () => {
  await stop(server);
  await t.close();
}, SETUP_TIMEOUT_MS);

function streamPath(owner: RegisteredHandle, extra = ''): string {
  const auth = signedAuthValue(owner.keys.secretKey, authLines.stream(owner.handle));
  return `/v1/inbox/${owner.handle}/stream?auth=${encodeURIComponent(auth)}${extra}`;
}

async function connect(
  owner: RegisteredHandle,
  options: { extra?: string; headers?: Record<string, string>; base?: string } = {},
): Promise<SseClient> {
  const client = await openSse(
    options.base ?? baseUrl,
    streamPath(owner, options.extra),
    options.headers,
  );
  clients.push(client);
  return client;
}

/** One unlabelled series of `/metrics`. */
async function metric(name: string): Promise<number> {
  const res = await request(t.app).get('/metrics').expect(200);
  const line = res.text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.slice(name.length + 1));
}

async function send(to: string, envelope: unknown, app = t.app): Promise<number> {
  const res = await request(app).post('/v1/messages').send({ to, envelope }).expect(201);
  return (res.body as { seq: number }).seq;
}

describe('opening GET /v1/inbox/{handle}/stream', () => {
  it('checks in order: handle 400, exists 404, auth present 400, auth verifies 401', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const cases: [string, number, string][] = [
      ['/v1/inbox/x!/stream', 400, 'handle must be 3-32 characters'],
      [`/v1/inbox/${uniqueHandle('ghost')}/stream`, 404, 'handle not found'],
      [`/v1/inbox/${alice.handle}/stream`, 400, 'missing auth query parameter'],
      [`/v1/inbox/${alice.handle}/stream?auth=`, 400, 'missing auth query parameter'],
      [`/v1/inbox/${alice.handle}/stream?auth=12345:abcd`, 401, 'auth header is stale'],
    ];
    for (const [path, status, message] of cases) {
      const res = await request(t.app).get(path).expect(status);
      expect(res.body).toEqual({
        error: {
          code: status === 400 ? 'bad_request' : status === 404 ? 'not_found' : 'unauthorized',
          message,
        },
      });
    }
  });

  it('refuses an inbox signature, another key’s signature and a stale one with 401', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const mallory = await registerHandle(t.app, t.config.server);
    const cases: [string, string][] = [
      [
        signedAuthValue(alice.keys.secretKey, authLines.inbox(alice.handle, 0)),
        'signature did not verify',
      ],
      [
        signedAuthValue(mallory.keys.secretKey, authLines.stream(alice.handle)),
        'signature did not verify',
      ],
      [
        signedAuthValue(alice.keys.secretKey, authLines.stream(alice.handle), unixNow() + 90),
        'auth header is stale',
      ],
    ];
    for (const [auth, message] of cases) {
      const res = await request(t.app)
        .get(`/v1/inbox/${alice.handle}/stream`)
        .query({ auth })
        .expect(401);
      expect(res.body).toEqual({ error: { code: 'unauthorized', message } });
    }
  });

  it('answers 401 for an auth given twice: present, so invalid rather than missing', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const res = await request(t.app)
      .get(`${streamPath(alice)}&auth=1:ab`)
      .expect(401);
    expect(res.body).toEqual({
      error: {
        code: 'unauthorized',
        message: 'malformed auth value: expected <unix_ts>:<sig_hex> with an integer ts',
      },
    });
  });

  it('answers 400 for a resume point that is not a non-negative integer', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const res = await request(t.app).get(streamPath(alice, '&since=-3')).expect(400);
    expect(res.body).toEqual({
      error: { code: 'bad_request', message: 'since must be a non-negative integer' },
    });
  });

  it('answers 400 for a malformed since even when Last-Event-ID (which wins) is valid', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const res = await request(t.app)
      .get(streamPath(alice, '&since=1&since=2'))
      .set('Last-Event-ID', '5')
      .expect(400);
    expect(res.body).toEqual({
      error: { code: 'bad_request', message: 'since must be a non-negative integer' },
    });
  });
});

describe('live delivery', () => {
  it('delivers a new message at once to every open stream of the handle, framed as SSE', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const bob = await registerHandle(t.app, t.config.server);
    const first = await connect(alice);
    const second = await connect(alice);
    const bobs = await connect(bob);
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('text/event-stream');
    expect(first.headers['cache-control']).toBe('no-cache, no-transform');
    const seq = await send(alice.handle, { hello: 'alice', list: [1, 2] });
    await first.waitForMessages(1);
    await second.waitForMessages(1);
    const res = await request(t.app)
      .get(`/v1/inbox/${alice.handle}`)
      .set('X-ID-Auth', signedAuthValue(alice.keys.secretKey, authLines.inbox(alice.handle, 0)))
      .expect(200);
    const stored = (res.body as { messages: { created_at: string }[] }).messages[0]!;
    for (const client of [first, second]) {
      expect(client.events.filter((e) => e.event === 'message')).toEqual([
        {
          id: String(seq),
          event: 'message',
          data: JSON.stringify({
            seq,
            envelope: { hello: 'alice', list: [1, 2] },
            created_at: stored.created_at,
          }),
        },
      ]);
    }
    expect(bobs.messages()).toEqual([]);
  });

  it('opens with a signature over the path as spelled, and delivers to it', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const upper = alice.handle.toUpperCase();
    const auth = signedAuthValue(alice.keys.secretKey, authLines.stream(upper));
    const client = await openSse(
      baseUrl,
      `/v1/inbox/${upper}/stream?auth=${encodeURIComponent(auth)}`,
    );
    clients.push(client);
    expect(client.status).toBe(200);
    const seq = await send(alice.handle, 'spelled');
    await client.waitForMessages(1);
    expect(client.messages().map((m) => [m.seq, m.envelope])).toEqual([[seq, 'spelled']]);
  });

  it('sends a keep-alive ping carrying the server time in Unix seconds', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const client = await connect(alice);
    const before = Math.floor(Date.now() / 1000);
    const ping = await client.waitForEvent('ping', PING_MS * 10);
    expect(ping.id).toBeUndefined();
    expect(ping.data).toMatch(/^\d+$/);
    expect(Number(ping.data)).toBeGreaterThanOrEqual(before);
    expect(Number(ping.data)).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });

  it('sends nothing older than the connection when no resume point is given', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    await send(alice.handle, 'old');
    const old = await send(alice.handle, 'older');
    const client = await connect(alice);
    expect(client.headers['x-stream-after']).toBe(String(old));
    const seq = await send(alice.handle, 'new');
    await client.waitForMessages(1);
    expect(client.messages().map((m) => [m.seq, m.envelope])).toEqual([[seq, 'new']]);
  });
});

describe('resume', () => {
  it('replays stored messages after Last-Event-ID, then goes live', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const seqs = [];
    for (let n = 0; n < 4; n++) seqs.push(await send(alice.handle, n));
    const client = await connect(alice, { headers: { 'Last-Event-ID': String(seqs[1]) } });
    expect(client.headers['x-stream-after']).toBe(String(seqs[1]));
    await client.waitForMessages(2);
    const live = await send(alice.handle, 'live');
    await client.waitForMessages(3);
    expect(client.messages().map((m) => m.seq)).toEqual([seqs[2], seqs[3], live]);
    expect(client.events.filter((e) => e.event === 'message').map((e) => e.id)).toEqual(
      [seqs[2], seqs[3], live].map(String),
    );
  });

  it('replays after the since query, and prefers Last-Event-ID when both are given', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const seqs = [];
    for (let n = 0; n < 3; n++) seqs.push(await send(alice.handle, n));
    const bySince = await connect(alice, { extra: `&since=${seqs[0]}` });
    await bySince.waitForMessages(2);
    expect(bySince.messages().map((m) => m.seq)).toEqual([seqs[1], seqs[2]]);
    const both = await connect(alice, {
      extra: `&since=${seqs[0]}`,
      headers: { 'Last-Event-ID': String(seqs[1]) },
    });
    await both.waitForMessages(1);
    const marker = await send(alice.handle, 'marker');
    await both.waitForMessages(2);
    expect(both.messages().map((m) => m.seq)).toEqual([seqs[2], marker]);
  });

  it('treats an empty Last-Event-ID as absent and resumes from since', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const seqs = [];
    for (let n = 0; n < 2; n++) seqs.push(await send(alice.handle, n));
    const client = await connect(alice, {
      extra: `&since=${seqs[0]}`,
      headers: { 'Last-Event-ID': '' },
    });
    await client.waitForMessages(1);
    expect(client.messages().map((m) => m.seq)).toEqual([seqs[1]]);
  });

  it('loses and duplicates nothing across a forced disconnect in the middle of a 500-message burst', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const before = await send(alice.handle, 'before the burst');
    const first = await connect(alice, { extra: `&since=${before}` });
    const sent: number[] = [];
    const burst = (async () => {
      for (let batch = 0; batch < 25; batch++) {
        const seqs = await Promise.all(
          Array.from({ length: 20 }, (_, i) => send(alice.handle, { n: batch * 20 + i })),
        );
        sent.push(...seqs);
      }
    })();
    await first.waitForMessages(100, 20_000);
    first.close();
    const received = first.messages().map((m) => m.seq);
    const lastId = first.events.filter((e) => e.event === 'message').at(-1)!.id!;
    const second = await connect(alice, { headers: { 'Last-Event-ID': lastId } });
    await burst;
    const rest = 500 - received.length;
    await second.waitForMessages(rest, 20_000);
    const all = [...received, ...second.messages().map((m) => m.seq)];
    expect(all).toHaveLength(500);
    expect(new Set(all).size).toBe(500);
    expect(all).toEqual([...sent].sort((a, b) => a - b));
    expect(second.events.some((e) => e.event === 'lagged')).toBe(false);
  });
});

describe('a subscriber that falls behind', () => {
  it('loses the overflow past 64 buffered messages and is told how many by a lagged event', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const lags = await metric('handle_relay_stream_lagged_total');
    const drops = await metric('handle_relay_stream_dropped_messages_total');
    const client = await connect(alice);
    client.pause();
    // Envelopes big enough that the paused socket backs up after a few of them.
    const big = 'x'.repeat(200_000);
    const total = 120;
    for (let n = 0; n < total; n++) await send(alice.handle, { n, big });
    client.resume();
    const lagged = await client.waitForEvent('lagged', 20_000);
    const dropped = (JSON.parse(lagged.data) as { dropped: number }).dropped;
    const delivered = client.messages();
    expect(dropped).toBeGreaterThan(0);
    expect(delivered.length + dropped).toBe(total);
    expect(delivered.length).toBeGreaterThanOrEqual(65);
    expect(await metric('handle_relay_stream_lagged_total')).toBe(lags + 1);
    expect(await metric('handle_relay_stream_dropped_messages_total')).toBe(drops + dropped);
    // What was delivered is a gapless prefix, and lagged comes after it.
    expect(delivered.map((m) => (m.envelope as { n: number }).n)).toEqual(
      Array.from({ length: delivered.length }, (_, i) => i),
    );
    const after = await send(alice.handle, 'after');
    await client.waitForMessages(delivered.length + 1);
    expect(client.messages().at(-1)!.seq).toBe(after);
  });
});

// LISTEN/NOTIFY needs a PostgreSQL server; on embedded PGlite (one process) these are skipped.
const describeServer = testDatabaseMode() === 'postgres' ? describe : describe.skip;

describeServer('two instances on one database', () => {
  /** Runs `body` with a second app on the test database, listening on its own port. */
  async function withSecondInstance(
    body: (other: TestApp['app'], otherServer: Server) => Promise<void>,
  ): Promise<void> {
    const logger = createLogger('second-instance', 'silent');
    const store = await openStore(t.store.target);
    const relay = await createRelayRuntime({ config: t.config, store, logger, now: Date.now });
    const other = createApp({
      config: t.config,
      db: store.db,
      ping: store.ping,
      logger,
      version: '0.1.0',
      now: Date.now,
      relay,
    });
    const otherServer = await listen(other);
    try {
      await body(other, otherServer);
    } finally {
      await relay.closeStreams();
      await stop(otherServer);
      await relay.close();
      await store.close();
    }
  }

  it('delivers a message sent to one instance to a stream open on the other', async () => {
    await withSecondInstance(async (other, otherServer) => {
      const alice = await registerHandle(t.app, t.config.server);
      const onOther = await connect(alice, { base: urlOf(otherServer) });
      const onThis = await connect(alice);
      const seqs = [await send(alice.handle, 'one'), await send(alice.handle, 'two', other)];
      await onOther.waitForMessages(2);
      await onThis.waitForMessages(2);
      expect(onOther.messages().map((m) => m.seq)).toEqual(seqs);
      expect(onThis.messages().map((m) => m.seq)).toEqual(seqs);
    });
  });

  it('delivers a burst of concurrent sends through both instances to a stream on each, in seq order, none missing', async () => {
    await withSecondInstance(async (other, otherServer) => {
      const alice = await registerHandle(t.app, t.config.server);
      const onOther = await connect(alice, { base: urlOf(otherServer) });
      const onThis = await connect(alice);
      const sends = Array.from({ length: 60 }, (_, n) =>
        send(alice.handle, { n }, n % 2 === 0 ? t.app : other),
      );
      const seqs = (await Promise.all(sends)).sort((a, b) => a - b);
      expect(new Set(seqs).size).toBe(60);
      await onOther.waitForMessages(60);
      await onThis.waitForMessages(60);
      expect(onOther.messages().map((m) => m.seq)).toEqual(seqs);
      expect(onThis.messages().map((m) => m.seq)).toEqual(seqs);
    });
  });
});

describe('shutdown', () => {
  it('ends open streams cleanly and refuses new ones with 503', async () => {
    const own = await createTestApp('stream_shutdown');
    const ownServer = await listen(own.app);
    try {
      const alice = await registerHandle(own.app, own.config.server);
      const client = await connect(alice, { base: urlOf(ownServer) });
      await own.relay.closeStreams();
      await waitFor(() => client.ended, 'the stream to end');
      const res = await request(own.app).get(streamPath(alice)).expect(503);
      expect(res.body).toEqual({
        error: { code: 'unavailable', message: 'the server is shutting down' },
      });
    } finally {
      await stop(ownServer);
      await own.close();
    }
  });
});
