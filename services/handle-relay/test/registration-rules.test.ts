import request from 'supertest';
import { generateKeyPair, primaryOf, toHex } from '../src/client/index.js';
import { RESERVED_HANDLES } from '../src/handles/handle-rules.js';
import {
  badRequest,
  handleRows,
  postRegistration,
  registration,
  uniqueHandle,
} from './handle-factories.js';
import type { HandleRecord } from '../src/handles/handle-record.js';
import { createTestApp, SETUP_TIMEOUT_MS, useTestApp } from './test-app.js';

const SERVER = 'relay.test';
const NOW_MS = 1_800_000_000_500;
const NOW_S = Math.floor(NOW_MS / 1000);

const t = useTestApp('registration_rules', {}, { clockMs: NOW_MS });

const post = (body: unknown) => postRegistration(t.app, body);
const rowsFor = (handle: string) => handleRows(t.store.db, handle);

describe('POST /v1/register: (c) handle rules', () => {
  it.each([
    ['ab', 'handle must be 3-32 characters'],
    ['a'.repeat(33), 'handle must be 3-32 characters'],
    ['', 'handle must be 3-32 characters'],
    ['Alice', 'handle may contain only lowercase letters a-z, digits 0-9, _ and -'],
    ['ali.ce', 'handle may contain only lowercase letters a-z, digits 0-9, _ and -'],
    ['ali ce', 'handle may contain only lowercase letters a-z, digits 0-9, _ and -'],
    ['alicé', 'handle may contain only lowercase letters a-z, digits 0-9, _ and -'],
    ['_alice', 'handle must start with a letter or digit'],
    ['-alice', 'handle must start with a letter or digit'],
  ])('refuses %j: %s', async (handle, message) => {
    const { body } = registration(SERVER, handle, { ts: NOW_S });
    const res = await post(body).expect(400);
    expect(res.body).toEqual(badRequest(message));
  });

  it.each([...RESERVED_HANDLES].filter((h) => h.length >= 3))(
    'refuses the reserved name %s',
    async (handle) => {
      const { body } = registration(SERVER, handle, { ts: NOW_S });
      const res = await post(body).expect(400);
      expect(res.body).toEqual(badRequest(`handle ${handle} is reserved`));
    },
  );

  it.each(['abc', 'z'.repeat(32), '0day', 'a_b-c'])('accepts %s', async (handle) => {
    const { body } = registration(SERVER, handle, { ts: NOW_S });
    await post(body).expect(201);
  });

  it('checks the handle rules before the timestamp', async () => {
    const { body } = registration(SERVER, 'ab', { ts: NOW_S - 3600 });
    const res = await post(body).expect(400);
    expect(res.body).toEqual(badRequest('handle must be 3-32 characters'));
  });
});

describe('POST /v1/register: (d) timestamp within 300 s', () => {
  it.each([-299, -300, 299, 300])('accepts a timestamp %i s from server time', async (skew) => {
    const { body } = registration(SERVER, uniqueHandle(), { ts: NOW_S + skew });
    await post(body).expect(201);
  });

  it.each([-301, 301, -86400])('refuses a timestamp %i s from server time', async (skew) => {
    const handle = uniqueHandle();
    const { body } = registration(SERVER, handle, { ts: NOW_S + skew });
    const res = await post(body).expect(400);
    expect(res.body).toEqual(
      badRequest('registration timestamp is more than 300 s away from server time'),
    );
    expect(await rowsFor(handle)).toEqual([]);
  });
});

describe('POST /v1/register: (e) one owner per handle, one handle per primary', () => {
  it('answers 409 for a handle already claimed and keeps the first owner', async () => {
    const first = registration(SERVER, uniqueHandle(), { ts: NOW_S });
    await post(first.body).expect(201);
    const second = registration(SERVER, first.body.payload.handle, { ts: NOW_S });
    const res = await post(second.body).expect(409);
    expect(res.body).toEqual({
      error: {
        code: 'conflict',
        message: `handle ${first.body.payload.handle} is already claimed`,
      },
    });
    const rows = await rowsFor(first.body.payload.handle);
    expect(rows.map((r) => r.primary_key)).toEqual([first.body.payload.primary]);
  });

  it('checks the timestamp before the handle is looked at in the store', async () => {
    const first = registration(SERVER, uniqueHandle(), { ts: NOW_S });
    await post(first.body).expect(201);
    const stale = registration(SERVER, first.body.payload.handle, { ts: NOW_S - 301 });
    const res = await post(stale.body).expect(400);
    expect(res.body).toEqual(
      badRequest('registration timestamp is more than 300 s away from server time'),
    );
  });

  it('answers 409 when the primary already owns a handle', async () => {
    const first = registration(SERVER, uniqueHandle(), { ts: NOW_S });
    await post(first.body).expect(201);
    const handle = uniqueHandle();
    const again = registration(SERVER, handle, { keys: first.keys, ts: NOW_S });
    const res = await post(again.body).expect(409);
    expect(res.body).toEqual({
      error: { code: 'conflict', message: 'this primary already owns a handle' },
    });
    expect(await rowsFor(handle)).toEqual([]);
  });

  it('gives exactly one 201 when many keys claim one handle at once', async () => {
    const handle = uniqueHandle('race');
    const claims = Array.from({ length: 12 }, () => registration(SERVER, handle, { ts: NOW_S }));
    const results = await Promise.all(claims.map((c) => post(c.body)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, ...Array<number>(11).fill(409)]);
    const winner = results.find((r) => r.status === 201);
    const rows = await rowsFor(handle);
    expect(rows.map((r) => r.primary_key)).toEqual([
      (winner?.body as HandleRecord | undefined)?.primary,
    ]);
  });

  it('gives exactly one 201 when one key claims many handles at once', async () => {
    const keys = generateKeyPair();
    const claims = Array.from({ length: 8 }, () =>
      registration(SERVER, uniqueHandle('multi'), { keys, ts: NOW_S }),
    );
    const results = await Promise.all(claims.map((c) => post(c.body)));
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array<number>(7).fill(409)]);
    const owned = await t.store.db
      .selectFrom('handle')
      .select('handle')
      .where('primary_key', '=', primaryOf(keys.publicKey))
      .execute();
    expect(owned).toHaveLength(1);
  });
});

describe('POST /v1/register: HTTP edges', () => {
  it('answers 405 with Allow for another method', async () => {
    const res = await request(t.app).get('/v1/register').expect(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.body).toEqual({
      error: { code: 'method_not_allowed', message: 'method not allowed' },
    });
  });

  it('answers 413 for a body over 64 KB', async () => {
    const { body } = registration(SERVER, uniqueHandle(), { ts: NOW_S });
    const big = { ...body, payload: { ...body.payload, pad: 'x'.repeat(70_000) } };
    const res = await post(big).expect(413);
    expect(res.body).toEqual({
      error: { code: 'payload_too_large', message: 'request body too large' },
    });
  });
});

describe('registration record', () => {
  it(
    'builds sigchain_url without the trailing slash of sig_server_url',
    async () => {
      const other = await createTestApp('registration_sig', {
        sig_server_url: 'https://sig.example.org/base/',
      });
      try {
        const { keys, body } = registration(SERVER, uniqueHandle());
        const res = await request(other.app).post('/v1/register').send(body).expect(201);
        expect((res.body as HandleRecord).sigchain_url).toBe(
          `https://sig.example.org/base/v1/sigchains/ed25519/${toHex(keys.publicKey)}`,
        );
      } finally {
        await other.close();
      }
    },
    SETUP_TIMEOUT_MS,
  );
});
