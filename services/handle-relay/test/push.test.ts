import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { pino } from 'pino';
import request from 'supertest';
import { authLines, signedAuthValue, unixNow } from '../src/client/index.js';
import { PUSH_CONCURRENCY, PushNotifier } from '../src/push/push-notifier.js';
import type { PushSender } from '../src/push/push-sender.port.js';
import { loadOrCreateVapidKeys } from '../src/push/vapid-keys.js';
import { createWebPushSender } from '../src/push/web-push.sender.js';
import { registerHandle, uniqueHandle, type RegisteredHandle } from './handle-factories.js';
import { browserKeys, decryptPush, startPushEndpoint, type PushEndpoint } from './push-endpoint.js';
import { createTestApp, SETUP_TIMEOUT_MS, type TestApp } from './test-app.js';
import { waitFor } from './wait-for.js';

let t: TestApp;
let strict: TestApp;
let endpoint: PushEndpoint;
beforeAll(async () => {
  t = await createTestApp('push', { push_allow_private_endpoints: true });
  strict = await createTestApp('push_strict');
  endpoint = await startPushEndpoint();
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  await endpoint.close();
  await t.close();
  await strict.close();
}, SETUP_TIMEOUT_MS);

type Verb = 'subscribe' | 'unsubscribe';

function post(
  app: TestApp,
  verb: Verb,
  owner: RegisteredHandle,
  body: Record<string, unknown>,
  signFor = String(body.endpoint),
) {
  const auth = signedAuthValue(owner.keys.secretKey, authLines.push(verb, owner.handle, signFor));
  return request(app.app)
    .post(`/v1/push/${verb}/${owner.handle}`)
    .set('X-ID-Auth', auth)
    .send(body);
}

async function rows(app: TestApp, handle: string) {
  const { rows: found } = await sql<{ endpoint: string; p256dh: string; auth: string }>`
    select endpoint, p256dh, auth from handle_relay.push_subscription
    where handle = ${handle} order by endpoint
  `.execute(app.store.db);
  return found;
}

let pathCounter = 0;
function pushUrl(): string {
  pathCounter += 1;
  return `${endpoint.url}/push/${pathCounter}`;
}

async function sendTo(handle: string, envelope: unknown = 'secret'): Promise<number> {
  const res = await request(t.app).post('/v1/messages').send({ to: handle, envelope }).expect(201);
  return (res.body as { seq: number }).seq;
}

describe('GET /v1/push/vapid-public-key', () => {
  it('answers the key pair created at vapid_key_path (0600) as an uncompressed P-256 point', async () => {
    const res = await request(t.app).get('/v1/push/vapid-public-key').expect(200);
    const stored = JSON.parse(fs.readFileSync(t.config.vapid_key_path, 'utf8')) as {
      publicKey: string;
    };
    expect(res.body).toEqual({ key: stored.publicKey });
    expect(Buffer.from(stored.publicKey, 'base64url')).toHaveLength(65);
    expect(fs.statSync(t.config.vapid_key_path).mode & 0o777).toBe(0o600);
  });
});

describe('POST /v1/push/subscribe/{handle}', () => {
  it('takes a signature over the path as spelled', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const upper = alice.handle.toUpperCase();
    const k = browserKeys();
    const endpoint = pushUrl();
    for (const verb of ['subscribe', 'unsubscribe'] as const) {
      await request(t.app)
        .post(`/v1/push/${verb}/${upper}`)
        .set(
          'X-ID-Auth',
          signedAuthValue(alice.keys.secretKey, authLines.push(verb, upper, endpoint)),
        )
        .send({ endpoint, p256dh: k.p256dh, auth: k.auth })
        .expect(204);
      expect(await rows(t, alice.handle)).toEqual(
        verb === 'subscribe' ? [{ endpoint, p256dh: k.p256dh, auth: k.auth }] : [],
      );
    }
  });

  it('stores the flat shape and the browser toJSON() shape, keyed by endpoint', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const k1 = browserKeys();
    const k2 = browserKeys();
    const [u1, u2] = [pushUrl(), pushUrl()];
    await post(t, 'subscribe', alice, { endpoint: u1, p256dh: k1.p256dh, auth: k1.auth }).expect(
      204,
    );
    await post(t, 'subscribe', alice, {
      endpoint: u2,
      expirationTime: null,
      keys: { p256dh: k2.p256dh, auth: k2.auth },
    }).expect(204);
    expect(await rows(t, alice.handle)).toEqual(
      [
        { endpoint: u1, p256dh: k1.p256dh, auth: k1.auth },
        { endpoint: u2, p256dh: k2.p256dh, auth: k2.auth },
      ].sort((a, b) => a.endpoint.localeCompare(b.endpoint)),
    );
    const k3 = browserKeys();
    await post(t, 'subscribe', alice, { endpoint: u1, p256dh: k3.p256dh, auth: k3.auth }).expect(
      204,
    );
    expect((await rows(t, alice.handle)).find((r) => r.endpoint === u1)).toEqual({
      endpoint: u1,
      p256dh: k3.p256dh,
      auth: k3.auth,
    });
  });

  it('checks in order: handle 400, exists 404, auth 401, then the body 400', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const k = browserKeys();
    const body = { endpoint: pushUrl(), p256dh: k.p256dh, auth: k.auth };
    const bad = await request(t.app).post('/v1/push/subscribe/x!').send(body).expect(400);
    expect((bad.body as { error: { code: string } }).error.code).toBe('bad_request');
    const unknown = await request(t.app)
      .post(`/v1/push/subscribe/${uniqueHandle('ghost')}`)
      .send(body)
      .expect(404);
    expect(unknown.body).toEqual({ error: { code: 'not_found', message: 'handle not found' } });
    const missing = await request(t.app)
      .post(`/v1/push/subscribe/${alice.handle}`)
      .send(body)
      .expect(401);
    expect(missing.body).toEqual({
      error: { code: 'unauthorized', message: 'missing X-ID-Auth header' },
    });
    const missingWithBadBody = await request(t.app)
      .post(`/v1/push/subscribe/${alice.handle}`)
      .set('Content-Type', 'application/json')
      .send('{"endpoint":')
      .expect(401);
    expect(missingWithBadBody.body).toEqual(missing.body);
    const noKeys = await post(t, 'subscribe', alice, { endpoint: body.endpoint }).expect(400);
    expect(noKeys.body).toEqual({
      error: { code: 'bad_request', message: 'p256dh must be a string' },
    });
    expect(await rows(t, alice.handle)).toEqual([]);
  });

  it.each<[Verb, string, string]>([
    [
      'subscribe',
      'malformed',
      'malformed auth value: expected <unix_ts>:<sig_hex> with an integer ts',
    ],
    ['subscribe', 'stale', 'auth header is stale'],
    [
      'unsubscribe',
      'malformed',
      'malformed auth value: expected <unix_ts>:<sig_hex> with an integer ts',
    ],
    ['unsubscribe', 'stale', 'auth header is stale'],
  ])(
    '%s: answers 401 for a %s X-ID-Auth before reading a malformed body',
    async (verb, kind, message) => {
      const alice = await registerHandle(t.app, t.config.server);
      const auth =
        kind === 'stale'
          ? signedAuthValue(
              alice.keys.secretKey,
              authLines.push(verb, alice.handle, ''),
              unixNow() - 3600,
            )
          : 'not-an-auth-value';
      const res = await request(t.app)
        .post(`/v1/push/${verb}/${alice.handle}`)
        .set('X-ID-Auth', auth)
        .set('Content-Type', 'application/json')
        .send('{"endpoint":')
        .expect(401);
      expect(res.body).toEqual({ error: { code: 'unauthorized', message } });
    },
  );

  it('answers 400 for a malformed body under a fresh, well-formed X-ID-Auth', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const res = await request(t.app)
      .post(`/v1/push/subscribe/${alice.handle}`)
      .set(
        'X-ID-Auth',
        signedAuthValue(alice.keys.secretKey, authLines.push('subscribe', alice.handle, '')),
      )
      .set('Content-Type', 'application/json')
      .send('{"endpoint":')
      .expect(400);
    expect(res.body).toEqual({ error: { code: 'bad_request', message: 'malformed JSON body' } });
  });

  it('accepts the keys in standard base64 with padding as well as base64url', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const k = browserKeys();
    const std = (v: string) => Buffer.from(v, 'base64url').toString('base64');
    const body = { endpoint: pushUrl(), p256dh: std(k.p256dh), auth: std(k.auth) };
    await post(t, 'subscribe', alice, body).expect(204);
    expect(await rows(t, alice.handle)).toEqual([body]);
  });

  it('binds the signature to the endpoint and to the operation', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const k = browserKeys();
    const body = { endpoint: pushUrl(), p256dh: k.p256dh, auth: k.auth };
    const otherEndpoint = await post(t, 'subscribe', alice, body, pushUrl()).expect(401);
    expect(otherEndpoint.body).toEqual({
      error: { code: 'unauthorized', message: 'signature did not verify' },
    });
    const unsubscribeSig = signedAuthValue(
      alice.keys.secretKey,
      authLines.push('unsubscribe', alice.handle, body.endpoint),
    );
    await request(t.app)
      .post(`/v1/push/subscribe/${alice.handle}`)
      .set('X-ID-Auth', unsubscribeSig)
      .send(body)
      .expect(401);
    expect(await rows(t, alice.handle)).toEqual([]);
  });

  it.each([
    ['http://push.example.com/x', 'endpoint must be an https: URL'],
    [
      'https://127.0.0.1/x',
      'endpoint must not resolve to a loopback, private or link-local address',
    ],
    [
      'https://localhost:8443/x',
      'endpoint must not resolve to a loopback, private or link-local address',
    ],
    [
      'https://10.0.0.7/x',
      'endpoint must not resolve to a loopback, private or link-local address',
    ],
    [
      'https://192.168.1.20/x',
      'endpoint must not resolve to a loopback, private or link-local address',
    ],
    [
      'https://169.254.169.254/latest',
      'endpoint must not resolve to a loopback, private or link-local address',
    ],
    ['https://[::1]/x', 'endpoint must not resolve to a loopback, private or link-local address'],
    [
      'https://[fe80::1]/x',
      'endpoint must not resolve to a loopback, private or link-local address',
    ],
    ...[
      'https://localhost./x',
      'https://push.localhost/x',
      'https://10.0.0.7./x',
      'https://[::ffff:127.0.0.1]/x',
      'https://[::127.0.0.1]/x',
      'https://[64:ff9b::a9fe:a9fe]/x',
      'https://[2002:c0a8:101::1]/x',
      'https://[fec0::1]/x',
    ].map((url) => [url, 'endpoint must not resolve to a loopback, private or link-local address']),
    ['not a url', 'endpoint must be an absolute URL'],
  ])(
    'refuses the endpoint %s with 400 unless private endpoints are allowed',
    async (url, message) => {
      const alice = await registerHandle(strict.app, strict.config.server);
      const k = browserKeys();
      const res = await post(strict, 'subscribe', alice, {
        endpoint: url,
        p256dh: k.p256dh,
        auth: k.auth,
      }).expect(400);
      expect(res.body).toEqual({ error: { code: 'bad_request', message } });
      expect(await rows(strict, alice.handle)).toEqual([]);
    },
  );

  it.each<[Verb, string]>([
    ['subscribe', 'https://push.example.com/a\u0000b'],
    ['subscribe', 'https://push.example.com/a\udc00b'],
    ['unsubscribe', 'https://push.example.com/a\u0000b'],
  ])(
    '%s: answers 400 for the endpoint %j, which could not be stored as given',
    async (verb, url) => {
      const alice = await registerHandle(t.app, t.config.server);
      const k = browserKeys();
      const body =
        verb === 'subscribe'
          ? { endpoint: url, p256dh: k.p256dh, auth: k.auth }
          : { endpoint: url };
      const res = await post(t, verb, alice, body).expect(400);
      expect(res.body).toEqual({
        error: {
          code: 'bad_request',
          message: 'endpoint must not contain NUL characters or lone surrogates',
        },
      });
      expect(await rows(t, alice.handle)).toEqual([]);
    },
  );

  it('takes an endpoint of 2,048 UTF-8 bytes, and refuses one byte more with 400', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const { p256dh, auth } = browserKeys();
    const k = { p256dh, auth };
    const base = 'https://push.example.com/';
    // Three-byte characters: the longest key the index holds is counted in bytes.
    const longest = base + '一'.repeat(674) + 'a'.repeat(2048 - base.length - 674 * 3);
    expect(Buffer.byteLength(longest)).toBe(2048);
    await post(t, 'subscribe', alice, { endpoint: longest, ...k }).expect(204);
    const over = await post(t, 'subscribe', alice, { endpoint: `${longest}b`, ...k }).expect(400);
    expect(over.body).toEqual({ error: { code: 'bad_request', message: 'endpoint is too long' } });
    const cjk = base + '一'.repeat(1000);
    const res = await post(t, 'subscribe', alice, { endpoint: cjk, ...k }).expect(400);
    expect(res.body).toEqual({ error: { code: 'bad_request', message: 'endpoint is too long' } });
    expect(await rows(t, alice.handle)).toEqual([{ endpoint: longest, ...k }]);
  });

  it('accepts a public https endpoint without the private-endpoint setting', async () => {
    const alice = await registerHandle(strict.app, strict.config.server);
    const k = browserKeys();
    const url = 'https://8.8.8.8/push/abc';
    await post(strict, 'subscribe', alice, {
      endpoint: url,
      p256dh: k.p256dh,
      auth: k.auth,
    }).expect(204);
    expect(await rows(strict, alice.handle)).toEqual([
      { endpoint: url, p256dh: k.p256dh, auth: k.auth },
    ]);
  });
});

describe('POST /v1/push/unsubscribe/{handle}', () => {
  it('removes the subscription by endpoint and answers 204', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const k = browserKeys();
    const [keep, drop] = [pushUrl(), pushUrl()];
    for (const e of [keep, drop]) {
      await post(t, 'subscribe', alice, { endpoint: e, p256dh: k.p256dh, auth: k.auth }).expect(
        204,
      );
    }
    await post(t, 'unsubscribe', alice, { endpoint: drop }).expect(204);
    expect((await rows(t, alice.handle)).map((r) => r.endpoint)).toEqual([keep]);
    await post(t, 'unsubscribe', alice, { endpoint: drop }).expect(204);
  });

  it('checks in order: exists 404, auth 401 (bound to the endpoint), body 400', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    await request(t.app)
      .post(`/v1/push/unsubscribe/${uniqueHandle('ghost')}`)
      .send({ endpoint: 'x' })
      .expect(404);
    const wrong = await post(t, 'unsubscribe', alice, { endpoint: pushUrl() }, pushUrl()).expect(
      401,
    );
    expect(wrong.body).toEqual({
      error: { code: 'unauthorized', message: 'signature did not verify' },
    });
    const res = await post(t, 'unsubscribe', alice, { endpoint: 5 }, '').expect(400);
    expect(res.body).toEqual({
      error: { code: 'bad_request', message: 'endpoint must be a string' },
    });
  });
});

describe('push fan-out after a send', () => {
  it('posts an RFC 8291 encrypted {type, to, seq} with TTL 86400 and a VAPID header to every subscription', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const keys = [browserKeys(), browserKeys()];
    const urls = [pushUrl(), pushUrl()];
    for (const [i, k] of keys.entries()) {
      await post(t, 'subscribe', alice, {
        endpoint: urls[i],
        keys: { p256dh: k.p256dh, auth: k.auth },
      }).expect(204);
    }
    const vapid = (await request(t.app).get('/v1/push/vapid-public-key')).body as { key: string };
    const seq = await sendTo(alice.handle, { secret: 'never in a push' });
    await waitFor(
      () => urls.every((u) => endpoint.received.some((r) => u.endsWith(r.path))),
      'both pushes',
    );
    for (const [i, k] of keys.entries()) {
      const got = endpoint.received.find((r) => urls[i]!.endsWith(r.path))!;
      expect(got.headers.ttl).toBe('86400');
      expect(got.headers['content-encoding']).toBe('aes128gcm');
      expect(got.headers.authorization).toMatch(
        new RegExp(`^vapid t=[\\w-]+\\.[\\w-]+\\.[\\w-]+, k=${vapid.key}$`),
      );
      expect(decryptPush(got.body, k)).toBe(
        JSON.stringify({ type: 'message', to: alice.handle, seq }),
      );
    }
  });

  it('answers the send without waiting for the push service', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const k = browserKeys();
    const url = pushUrl();
    await post(t, 'subscribe', alice, { endpoint: url, p256dh: k.p256dh, auth: k.auth }).expect(
      204,
    );
    endpoint.hold = true;
    try {
      await sendTo(alice.handle);
      await waitFor(() => endpoint.received.some((r) => url.endsWith(r.path)), 'the held push');
    } finally {
      endpoint.release();
    }
    await t.relay.push.idle();
  });

  it.each([410, 404])('deletes a subscription whose push service answers %i', async (status) => {
    const alice = await registerHandle(t.app, t.config.server);
    const k = browserKeys();
    const [gone, alive] = [pushUrl(), pushUrl()];
    endpoint.statusFor.set(new URL(gone).pathname, status);
    endpoint.statusFor.set(new URL(alive).pathname, 500);
    for (const e of [gone, alive]) {
      await post(t, 'subscribe', alice, { endpoint: e, p256dh: k.p256dh, auth: k.auth }).expect(
        204,
      );
    }
    await sendTo(alice.handle);
    await waitFor(() => endpoint.received.some((r) => gone.endsWith(r.path)), 'the push');
    await t.relay.push.idle();
    expect((await rows(t, alice.handle)).map((r) => r.endpoint)).toEqual([alive]);
  });
});

describe('push at shutdown', () => {
  it('delivers the notifications still queued when the relay shuts down', async () => {
    const own = await createTestApp('push_shutdown', { push_allow_private_endpoints: true });
    const alice = await registerHandle(own.app, own.config.server);
    const k = browserKeys();
    const urls = Array.from({ length: PUSH_CONCURRENCY + 4 }, () => pushUrl());
    for (const url of urls) {
      await post(own, 'subscribe', alice, { endpoint: url, p256dh: k.p256dh, auth: k.auth });
    }
    const reached = () => urls.filter((u) => endpoint.received.some((r) => u.endsWith(r.path)));
    endpoint.hold = true;
    try {
      await request(own.app).post('/v1/messages').send({ to: alice.handle, envelope: 'x' });
      await waitFor(() => reached().length === PUSH_CONCURRENCY, 'a full set of held pushes');
      const closing = own.close();
      expect(reached()).toHaveLength(PUSH_CONCURRENCY);
      endpoint.release();
      await closing;
    } finally {
      endpoint.release();
    }
    expect(reached()).toEqual(urls);
  });

  it('drops and logs what is still queued once the grace period is over', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const k = browserKeys();
    const urls = [pushUrl(), pushUrl(), pushUrl()];
    for (const url of urls) {
      await post(t, 'subscribe', alice, { endpoint: url, p256dh: k.p256dh, auth: k.auth });
    }
    const logged: { msg: string; dropped?: number }[] = [];
    const logger = pino(
      { level: 'warn' },
      { write: (line: string) => logged.push(JSON.parse(line) as (typeof logged)[number]) },
    );
    const answers: (() => void)[] = [];
    const sent: string[] = [];
    const sender: PushSender = {
      send: (target) => {
        sent.push(target.endpoint);
        return new Promise((resolve) => answers.push(() => resolve({ status: 201 })));
      },
      // As the real sender does: what is still running ends at once.
      close: () => {
        for (const answer of answers.splice(0)) answer();
        return Promise.resolve();
      },
    };
    const notifier = new PushNotifier({
      db: t.store.db,
      sender,
      logger,
      concurrency: 1,
      closeGraceMs: 50,
    });
    notifier.notify(alice.handle, 1);
    await waitFor(() => sent.length === 1, 'the first delivery');
    await notifier.close();
    expect(sent).toHaveLength(1);
    expect(logged.map(({ msg, dropped }) => ({ msg, dropped }))).toEqual([
      { msg: 'shutdown: queued push deliveries dropped', dropped: 2 },
    ]);
    notifier.notify(alice.handle, 2);
    await notifier.idle();
    expect(sent).toHaveLength(1);
  });

  it('drops the deliveries of a fan-out that was still reading its subscriptions when the grace ended', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const k = browserKeys();
    for (const url of [pushUrl(), pushUrl()]) {
      await post(t, 'subscribe', alice, { endpoint: url, p256dh: k.p256dh, auth: k.auth });
    }
    const logged: { msg: string; dropped?: number }[] = [];
    const logger = pino(
      { level: 'warn' },
      { write: (line: string) => logged.push(JSON.parse(line) as (typeof logged)[number]) },
    );
    // The fan-out's read of the subscriptions answers only once the grace is over: the
    // sender is closed right after it ends.
    let read!: () => void;
    const graceOver = new Promise<void>((resolve) => (read = resolve));
    let reading = false;
    const gated = t.store.db.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        reading = true;
        await graceOver;
        return args.result;
      },
    });
    const sent: string[] = [];
    const sender: PushSender = {
      send: (target) => {
        sent.push(target.endpoint);
        return Promise.resolve({ status: 201 });
      },
      close: () => {
        read();
        return Promise.resolve();
      },
    };
    const notifier = new PushNotifier({ db: gated, sender, logger, closeGraceMs: 50 });
    notifier.notify(alice.handle, 1);
    await waitFor(() => reading, 'the fan-out reading the subscriptions');
    await notifier.close();
    expect(sent).toEqual([]);
    expect(logged.map(({ msg, dropped }) => ({ msg, dropped }))).toEqual([
      { msg: 'shutdown: queued push deliveries dropped', dropped: 1 },
      { msg: 'shutdown: queued push deliveries dropped', dropped: 1 },
    ]);
  });

  it('cuts off a delivery still running when the grace period is over', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const k = browserKeys();
    const url = pushUrl();
    await post(t, 'subscribe', alice, { endpoint: url, p256dh: k.p256dh, auth: k.auth });
    const logged: { msg: string; endpoint?: string }[] = [];
    const logger = pino(
      { level: 'warn' },
      { write: (line: string) => logged.push(JSON.parse(line) as (typeof logged)[number]) },
    );
    const notifier = new PushNotifier({
      db: t.store.db,
      sender: createWebPushSender({
        keys: loadOrCreateVapidKeys(path.join(t.dataDir, 'cut-off-vapid.json')),
        subject: 'mailto:test@example.org',
        allowPrivate: true,
      }),
      logger,
      closeGraceMs: 50,
    });
    endpoint.hold = true;
    try {
      notifier.notify(alice.handle, 1);
      await waitFor(() => endpoint.received.some((r) => url.endsWith(r.path)), 'the held push');
      const began = Date.now();
      await notifier.close();
      // Without the cut-off, the close waited for the sender's 10 s answer timeout.
      expect(Date.now() - began).toBeLessThan(2_000);
    } finally {
      endpoint.release();
    }
    expect(logged.map(({ msg, endpoint: e }) => ({ msg, endpoint: e }))).toEqual([
      { msg: 'push delivery failed', endpoint: url },
    ]);
  });
});
