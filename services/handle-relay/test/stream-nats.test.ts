import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@svc/envelope';
import { describeNats, testDatabaseMode } from '@svc/testing';
import request from 'supertest';
import { createApp } from '../src/app.js';
import { authLines, signedAuthValue } from '../src/client/index.js';
import { openStore } from '../src/db/database.js';
import { createRelayRuntime } from '../src/runtime.js';
import { registerHandle, type RegisteredHandle } from './handle-factories.js';
import { openSse, type SseClient } from './sse-client.js';
import { createTestApp, SETUP_TIMEOUT_MS, type TestApp } from './test-app.js';

type App = TestApp['app'];

/** Two relay instances on one database, fanning out through NATS, each listening. */
interface Pair {
  one: { app: App; base: string };
  two: { app: App; base: string };
}

function listen(app: App): Promise<Server> {
  return new Promise((resolve) => {
    const s = http.createServer(app).listen(0, '127.0.0.1', () => resolve(s));
  });
}

const baseOf = (s: Server): string => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;

async function stop(s: Server): Promise<void> {
  s.closeAllConnections();
  await new Promise((resolve) => s.close(resolve));
}

// NATS fans out between instances of a PostgreSQL deployment; PGlite is one process.
function onServer(name: string, body: (natsUrl: string) => void): void {
  if (testDatabaseMode() === 'postgres') describeNats(name, body);
  // Skipped on the embedded database: one process, no other instance to fan out to.
  else describe.skip(name, () => it('needs a PostgreSQL server', () => undefined));
}

onServer('live streams across instances with pubsub: nats', (natsUrl) => {
  let t: TestApp;
  let pair: Pair;
  const closers: (() => Promise<void>)[] = [];
  const clients: SseClient[] = [];

  beforeAll(async () => {
    t = await createTestApp('stream_nats', { pubsub: 'nats', nats_url: natsUrl });
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
    const [s1, s2] = [await listen(t.app), await listen(other)];
    pair = { one: { app: t.app, base: baseOf(s1) }, two: { app: other, base: baseOf(s2) } };
    closers.push(
      async () => {
        await relay.closeStreams();
        await stop(s2);
        await relay.close();
        await store.close();
      },
      async () => {
        await t.relay.closeStreams();
        await stop(s1);
        await t.close();
      },
    );
  }, SETUP_TIMEOUT_MS);
  afterEach(() => {
    for (const c of clients.splice(0)) c.close();
  });
  afterAll(async () => {
    for (const close of closers) await close();
  }, SETUP_TIMEOUT_MS);

  async function connect(
    owner: RegisteredHandle,
    base: string,
    headers: Record<string, string> = {},
  ): Promise<SseClient> {
    const auth = signedAuthValue(owner.keys.secretKey, authLines.stream(owner.handle));
    const path = `/v1/inbox/${owner.handle}/stream?auth=${encodeURIComponent(auth)}`;
    const client = await openSse(base, path, headers);
    clients.push(client);
    return client;
  }

  async function send(app: App, to: string, envelope: unknown): Promise<number> {
    const res = await request(app).post('/v1/messages').send({ to, envelope }).expect(201);
    return (res.body as { seq: number }).seq;
  }

  it('delivers concurrent sends through both instances to a stream on each, in seq order, none missing', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const onOne = await connect(alice, pair.one.base);
    const onTwo = await connect(alice, pair.two.base);
    const seqs = (
      await Promise.all(
        Array.from({ length: 60 }, (_, n) =>
          send(n % 2 ? pair.one.app : pair.two.app, alice.handle, { n }),
        ),
      )
    ).sort((a, b) => a - b);
    await onOne.waitForMessages(60);
    await onTwo.waitForMessages(60);
    expect(onOne.messages().map((m) => m.seq)).toEqual(seqs);
    expect(onTwo.messages().map((m) => m.seq)).toEqual(seqs);
  });

  it('resumes on the other instance after Last-Event-ID with no gap and no duplicate', async () => {
    const bob = await registerHandle(t.app, t.config.server);
    const first = await connect(bob, pair.one.base);
    const early = [
      await send(pair.two.app, bob.handle, 'a'),
      await send(pair.one.app, bob.handle, 'b'),
    ];
    await first.waitForMessages(2);
    first.close();
    const missed = [
      await send(pair.two.app, bob.handle, 'c'),
      await send(pair.one.app, bob.handle, 'd'),
    ];
    const second = await connect(bob, pair.two.base, { 'Last-Event-ID': String(early[1]) });
    const live = await send(pair.one.app, bob.handle, 'e');
    await second.waitForMessages(3);
    expect(second.messages().map((m) => m.seq)).toEqual([...missed, live]);
    expect(second.messages().map((m) => m.envelope)).toEqual(['c', 'd', 'e']);
  });

  it('tells a stream that falls behind on the other instance how many it lost (lagged)', async () => {
    const carol = await registerHandle(t.app, t.config.server);
    const client = await connect(carol, pair.two.base);
    client.pause();
    // Envelopes big enough that the paused socket backs up after a few of them.
    const big = 'x'.repeat(200_000);
    const total = 120;
    for (let n = 0; n < total; n++) await send(pair.one.app, carol.handle, { n, big });
    client.resume();
    const lagged = await client.waitForEvent('lagged', 20_000);
    const dropped = (JSON.parse(lagged.data) as { dropped: number }).dropped;
    const delivered = client.messages();
    expect(dropped).toBeGreaterThan(0);
    expect(delivered.length + dropped).toBe(total);
    expect(delivered.map((m) => (m.envelope as { n: number }).n)).toEqual(
      Array.from({ length: delivered.length }, (_, i) => i),
    );
  });
});
