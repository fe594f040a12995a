import { sql } from 'kysely';
import request from 'supertest';
import { authLines, signedAuthValue, unixNow } from '../src/client/index.js';
import { registerHandle, uniqueHandle, type RegisteredHandle } from './handle-factories.js';
import { createTestApp, SETUP_TIMEOUT_MS, useTestApp, type TestApp } from './test-app.js';

const t = useTestApp('messages');

const RFC3339_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function send(to: string, envelope: unknown) {
  return request(t.app).post('/v1/messages').send({ to, envelope });
}

function inbox(owner: RegisteredHandle, query: { since?: number; limit?: number } = {}) {
  const since = query.since ?? 0;
  const auth = signedAuthValue(owner.keys.secretKey, authLines.inbox(owner.handle, since));
  return request(t.app).get(`/v1/inbox/${owner.handle}`).query(query).set('X-ID-Auth', auth);
}

async function storedRows(recipient: string) {
  const { rows } = await sql<{ seq: number; envelope: string }>`
    select seq, envelope from handle_relay.message where recipient = ${recipient} order by seq
  `.execute(t.store.db);
  return rows;
}

describe('POST /v1/messages', () => {
  it('stores the envelope with the next sequence number and answers 201 {seq, created_at}', async () => {
    const bob = await registerHandle(t.app, t.config.server);
    const envelope = { from: 'ed25519:aa', ct: 'opaque', n: [1, 2, 3] };
    const res = await send(bob.handle, envelope).expect(201);
    const body = res.body as { seq: number; created_at: string };
    expect(Object.keys(body).sort()).toEqual(['created_at', 'seq']);
    expect(Number.isInteger(body.seq)).toBe(true);
    expect(body.created_at).toMatch(RFC3339_MS);
    expect(await storedRows(bob.handle)).toEqual([
      { seq: body.seq, envelope: JSON.stringify(envelope) },
    ]);
  });

  it('numbers messages in one global ascending sequence across recipients', async () => {
    const a = await registerHandle(t.app, t.config.server);
    const b = await registerHandle(t.app, t.config.server);
    const s1 = (await send(a.handle, 1).expect(201)).body as { seq: number };
    const s2 = (await send(b.handle, 2).expect(201)).body as { seq: number };
    const s3 = (await send(a.handle, 3).expect(201)).body as { seq: number };
    expect(s2.seq).toBeGreaterThan(s1.seq);
    expect(s3.seq).toBeGreaterThan(s2.seq);
  });

  it('accepts any JSON value as the envelope, null included', async () => {
    const bob = await registerHandle(t.app, t.config.server);
    for (const envelope of [null, 'text', 42, [1, 'two'], { nested: { deep: true } }]) {
      await send(bob.handle, envelope).expect(201);
    }
    expect((await storedRows(bob.handle)).map((r) => r.envelope)).toEqual([
      'null',
      '"text"',
      '42',
      '[1,"two"]',
      '{"nested":{"deep":true}}',
    ]);
  });

  it('accepts the recipient as <handle>@<server> of this server, in any case', async () => {
    const bob = await registerHandle(t.app, t.config.server);
    await send(`${bob.handle.toUpperCase()}@RELAY.TEST`, 'hi').expect(201);
    expect(await storedRows(bob.handle)).toHaveLength(1);
  });

  it('refuses a recipient on another server with 400', async () => {
    const bob = await registerHandle(t.app, t.config.server);
    const res = await send(`${bob.handle}@elsewhere.example`, 'hi').expect(400);
    expect(res.body).toEqual({
      error: { code: 'bad_request', message: 'to must be a handle of this server' },
    });
  });

  it('answers 404 for an unknown recipient', async () => {
    const res = await send(uniqueHandle('ghost'), 'hi').expect(404);
    expect(res.body).toEqual({ error: { code: 'not_found', message: 'handle not found' } });
  });

  it.each([
    ['a missing to', { envelope: 1 }, 'to must be a string'],
    ['a non-string to', { to: 5, envelope: 1 }, 'to must be a string'],
    ['a missing envelope', { to: 'someone' }, 'envelope is required'],
    ['a malformed handle', { to: 'a!', envelope: 1 }, 'handle must be 3-32 characters'],
    ['a reserved handle', { to: 'admin', envelope: 1 }, 'handle admin is reserved'],
    ['an array body', [1, 2], 'body must be a JSON object'],
  ])('answers 400 for %s', async (_name, body, message) => {
    const res = await request(t.app).post('/v1/messages').send(body).expect(400);
    expect(res.body).toEqual({ error: { code: 'bad_request', message } });
  });

  it('answers 400 for a recipient spelled with a non-ASCII look-alike (Kelvin sign for k)', async () => {
    const kelvin = await registerHandle(t.app, t.config.server, uniqueHandle('kelvin'));
    const res = await send(`\u212A${kelvin.handle.slice(1)}`, 'hi').expect(400);
    expect(res.body).toEqual({
      error: {
        code: 'bad_request',
        message: 'handle may contain only lowercase letters a-z, digits 0-9, _ and -',
      },
    });
    expect(await storedRows(kelvin.handle)).toEqual([]);
  });

  it('reads the body as JSON whatever Content-Type it is sent with', async () => {
    const bob = await registerHandle(t.app, t.config.server);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const res = await request(t.app)
        .post('/v1/messages')
        .set('Content-Type', type)
        .send(JSON.stringify({ to: bob.handle, envelope: { type } }))
        .expect(201);
      expect(Object.keys(res.body as object).sort()).toEqual(['created_at', 'seq']);
    }
    expect((await storedRows(bob.handle)).length).toBe(2);
  });

  it('answers 400 for a malformed JSON body', async () => {
    const res = await request(t.app)
      .post('/v1/messages')
      .set('Content-Type', 'application/json')
      .send('{"to":')
      .expect(400);
    expect(res.body).toEqual({ error: { code: 'bad_request', message: 'malformed JSON body' } });
  });

  it('accepts an envelope of exactly 262,144 bytes of JSON and refuses one byte more with 413', async () => {
    const bob = await registerHandle(t.app, t.config.server);
    const atLimit = 'x'.repeat(262_144 - 2);
    await send(bob.handle, atLimit).expect(201);
    const res = await send(bob.handle, `${atLimit}y`).expect(413);
    expect(res.body).toEqual({
      error: { code: 'payload_too_large', message: 'envelope is larger than 262144 bytes' },
    });
    expect(await storedRows(bob.handle)).toHaveLength(1);
  });

  it('measures the envelope in UTF-8 bytes, not characters', async () => {
    const bob = await registerHandle(t.app, t.config.server);
    const res = await send(bob.handle, 'é'.repeat(131_072)).expect(413);
    expect((res.body as { error: { code: string } }).error.code).toBe('payload_too_large');
  });

  it('checks that the recipient exists before the envelope size', async () => {
    const res = await send(uniqueHandle('ghost'), 'x'.repeat(300_000)).expect(404);
    expect(res.body).toEqual({ error: { code: 'not_found', message: 'handle not found' } });
  });

  it('answers 405 for another method', async () => {
    const res = await request(t.app).get('/v1/messages').expect(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.body).toEqual({
      error: { code: 'method_not_allowed', message: 'method not allowed' },
    });
  });
});

describe('GET /v1/inbox/{handle}', () => {
  it('returns the owner’s messages ascending with the defaults since=0, limit=100', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const other = await registerHandle(t.app, t.config.server);
    const sent: { seq: number; created_at: string }[] = [];
    for (const n of [1, 2, 3]) {
      sent.push(
        (await send(alice.handle, { n }).expect(201)).body as { seq: number; created_at: string },
      );
      await send(other.handle, { not: 'yours' }).expect(201);
    }
    const res = await inbox(alice).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      messages: sent.map((s, i) => ({
        seq: s.seq,
        envelope: { n: i + 1 },
        created_at: s.created_at,
      })),
      next_since: sent[2]!.seq,
      has_more: false,
    });
  });

  it('pages with since and limit, reporting next_since and has_more', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const seqs: number[] = [];
    for (let n = 0; n < 5; n++)
      seqs.push(((await send(alice.handle, n).expect(201)).body as { seq: number }).seq);
    const first = (await inbox(alice, { limit: 2 }).expect(200)).body as {
      messages: { seq: number }[];
      next_since: number;
      has_more: boolean;
    };
    expect(first.messages.map((m) => m.seq)).toEqual(seqs.slice(0, 2));
    expect(first).toMatchObject({ next_since: seqs[1], has_more: true });
    const second = (await inbox(alice, { since: first.next_since, limit: 3 }).expect(200))
      .body as typeof first;
    expect(second.messages.map((m) => m.seq)).toEqual(seqs.slice(2));
    expect(second).toMatchObject({ next_since: seqs[4], has_more: false });
  });

  it('answers an empty page with next_since equal to since', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const res = await inbox(alice, { since: 123456 }).expect(200);
    expect(res.body).toEqual({ messages: [], next_since: 123456, has_more: false });
  });

  it('refuses a signature made for another since with 401 (the cursor is signed)', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const auth = signedAuthValue(alice.keys.secretKey, authLines.inbox(alice.handle, 0));
    const res = await request(t.app)
      .get(`/v1/inbox/${alice.handle}?since=5`)
      .set('X-ID-Auth', auth)
      .expect(401);
    expect(res.body).toEqual({
      error: { code: 'unauthorized', message: 'signature did not verify' },
    });
  });

  it('refuses a stream signature, another key, a missing and a stale header with 401', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const mallory = await registerHandle(t.app, t.config.server);
    const path = `/v1/inbox/${alice.handle}`;
    const cases: [string | undefined, string][] = [
      [
        signedAuthValue(alice.keys.secretKey, authLines.stream(alice.handle)),
        'signature did not verify',
      ],
      [
        signedAuthValue(mallory.keys.secretKey, authLines.inbox(alice.handle, 0)),
        'signature did not verify',
      ],
      [undefined, 'missing X-ID-Auth header'],
      [
        signedAuthValue(alice.keys.secretKey, authLines.inbox(alice.handle, 0), unixNow() - 90),
        'auth header is stale',
      ],
    ];
    for (const [auth, message] of cases) {
      const req = request(t.app).get(path);
      if (auth) req.set('X-ID-Auth', auth);
      const res = await req.expect(401);
      expect(res.body).toEqual({ error: { code: 'unauthorized', message } });
    }
  });

  it.each([
    ['since=-1', 'since must be a non-negative integer'],
    ['since=abc', 'since must be a non-negative integer'],
    ['since=1.5', 'since must be a non-negative integer'],
    ['limit=0', 'limit must be an integer from 1 to 500'],
    ['limit=501', 'limit must be an integer from 1 to 500'],
    ['limit=x', 'limit must be an integer from 1 to 500'],
    ['since=1&since=2', 'since must be a non-negative integer'],
  ])('answers 400 for %s', async (query, message) => {
    const alice = await registerHandle(t.app, t.config.server);
    const res = await request(t.app).get(`/v1/inbox/${alice.handle}?${query}`).expect(400);
    expect(res.body).toEqual({ error: { code: 'bad_request', message } });
  });

  it('checks in order: handle 400, since/limit 400, exists 404, auth 401', async () => {
    const badHandle = await request(t.app).get('/v1/inbox/x?limit=0').expect(400);
    expect((badHandle.body as { error: { message: string } }).error.message).toBe(
      'handle must be 3-32 characters',
    );
    await request(t.app)
      .get(`/v1/inbox/${uniqueHandle('ghost')}?limit=0`)
      .expect(400);
    const unknown = await request(t.app)
      .get(`/v1/inbox/${uniqueHandle('ghost')}`)
      .expect(404);
    expect(unknown.body).toEqual({ error: { code: 'not_found', message: 'handle not found' } });
    const alice = await registerHandle(t.app, t.config.server);
    await request(t.app).get(`/v1/inbox/${alice.handle}`).expect(401);
  });

  it('accepts limit=500 and signs the since value used, even when written with leading zeros', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    await send(alice.handle, 'one').expect(201);
    const auth = signedAuthValue(alice.keys.secretKey, authLines.inbox(alice.handle, 0));
    const res = await request(t.app)
      .get(`/v1/inbox/${alice.handle}?since=000&limit=500`)
      .set('X-ID-Auth', auth)
      .expect(200);
    expect((res.body as { messages: unknown[] }).messages).toHaveLength(1);
  });

  it('reads a limit written with leading zeros as the integer it is', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    await send(alice.handle, 'one').expect(201);
    await send(alice.handle, 'two').expect(201);
    const auth = signedAuthValue(alice.keys.secretKey, authLines.inbox(alice.handle, 0));
    const res = await request(t.app)
      .get(`/v1/inbox/${alice.handle}?limit=0001`)
      .set('X-ID-Auth', auth)
      .expect(200);
    const page = res.body as { messages: { envelope: unknown }[]; has_more: boolean };
    expect(page.messages.map((m) => m.envelope)).toEqual(['one']);
    expect(page.has_more).toBe(true);
    await request(t.app)
      .get(`/v1/inbox/${alice.handle}?limit=0501`)
      .set('X-ID-Auth', auth)
      .expect(400);
  });
});

describe('rate limiting of sends', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await createTestApp('messages_limited', { rate_limit_per_minute: 60 });
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await limited.close();
  }, SETUP_TIMEOUT_MS);

  it('answers 429 rate_limited with Retry-After once a client spent its burst of 60', async () => {
    limited.clock.fixedMs = Date.now();
    const bob = await registerHandle(limited.app, limited.config.server);
    for (let i = 0; i < 60; i++) {
      await request(limited.app)
        .post('/v1/messages')
        .send({ to: bob.handle, envelope: i })
        .expect(201);
    }
    const res = await request(limited.app)
      .post('/v1/messages')
      .send({ to: bob.handle, envelope: 'one too many' })
      .expect(429);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toEqual({ error: { code: 'rate_limited', message: 'too many requests' } });
    limited.clock.fixedMs += 1_000;
    await request(limited.app)
      .post('/v1/messages')
      .send({ to: bob.handle, envelope: 'later' })
      .expect(201);
  });

  it(
    'caps the burst at a minute of a rate below 60',
    async () => {
      const slow = await createTestApp('messages_slow_limit', { rate_limit_per_minute: 5 });
      try {
        slow.clock.fixedMs = Date.now();
        const bob = await registerHandle(slow.app, slow.config.server);
        for (let i = 0; i < 5; i++) {
          await request(slow.app)
            .post('/v1/messages')
            .send({ to: bob.handle, envelope: i })
            .expect(201);
        }
        const res = await request(slow.app)
          .post('/v1/messages')
          .send({ to: bob.handle, envelope: 'sixth' })
          .expect(429);
        expect(res.headers['retry-after']).toBe('12');
        expect(res.body).toEqual({ error: { code: 'rate_limited', message: 'too many requests' } });
        const { rows } = await sql<{ envelope: string }>`
        select envelope from handle_relay.message where recipient = ${bob.handle} order by seq
      `.execute(slow.store.db);
        expect(rows.map((r) => r.envelope)).toEqual(['0', '1', '2', '3', '4']);
      } finally {
        await slow.close();
      }
    },
    SETUP_TIMEOUT_MS,
  );

  it('limits registrations per client address too', async () => {
    limited.clock.fixedMs = Date.now() + 3_600_000;
    let status = 0;
    for (let i = 0; i < 61 && status !== 429; i++) {
      const res = await request(limited.app).post('/v1/register').send({});
      status = res.status;
    }
    expect(status).toBe(429);
  });
});
