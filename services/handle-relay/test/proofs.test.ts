import request from 'supertest';
import { authLines, generateKeyPair, signedAuthValue } from '../src/client/index.js';
import { registerHandle, uniqueHandle, type RegisteredHandle } from './handle-factories.js';
import type { ErrorBody } from './handle-factories.js';
import type { HandleRecord } from '../src/handles/handle-record.js';
import { useTestApp } from './test-app.js';

const SERVER = 'relay.test';
const NOW_MS = 1_800_000_000_000;
const NOW_S = NOW_MS / 1000;

const t = useTestApp('proofs', {}, { clockMs: undefined });

/** Registers at real time, then freezes the server clock for the signed request. */
async function owner(): Promise<RegisteredHandle> {
  t.clock.fixedMs = undefined;
  const registered = await registerHandle(t.app, SERVER);
  t.clock.fixedMs = NOW_MS;
  return registered;
}

function put(handle: string, body: unknown, auth?: string) {
  const req = request(t.app).put(`/v1/profile/${handle}/proofs`);
  if (auth !== undefined) req.set('X-ID-Auth', auth);
  return req.send(body as object);
}

function authFor(o: RegisteredHandle, ts = NOW_S, lines = authLines.setProofs(o.handle)) {
  return signedAuthValue(o.keys.secretKey, lines, ts);
}

async function storedProofs(handle: string): Promise<string[]> {
  const row = await t.store.db
    .selectFrom('handle')
    .select('proofs')
    .where('handle', '=', handle)
    .executeTakeFirstOrThrow();
  return row.proofs;
}

const err = (code: string, message: string) => ({ error: { code, message } });

/** JSON with every non-ASCII character written as a `\\uXXXX` escape (6 bytes each). */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

describe('PUT /v1/profile/{handle}/proofs: success', () => {
  it('answers 204 and lookups return the proofs in the order given', async () => {
    const o = await owner();
    const proofs = ['github:alice', 'dns:example.org', 'mastodon:@a@b.social'];
    const res = await put(o.handle, { proofs }, authFor(o)).expect(204);
    expect(res.text).toBe('');
    const lookup = await request(t.app).get(`/v1/u/${o.handle}`).expect(200);
    expect((lookup.body as HandleRecord).proofs).toEqual(proofs);
    expect(await storedProofs(o.handle)).toEqual(proofs);
  });

  it('replaces the earlier list, and an empty list clears it', async () => {
    const o = await owner();
    await put(o.handle, { proofs: ['a:1', 'b:2'] }, authFor(o)).expect(204);
    await put(o.handle, { proofs: ['c:3'] }, authFor(o)).expect(204);
    expect(await storedProofs(o.handle)).toEqual(['c:3']);
    await put(o.handle, { proofs: [] }, authFor(o)).expect(204);
    expect(await storedProofs(o.handle)).toEqual([]);
  });

  it('folds the case of the path handle; the signature covers the folded handle', async () => {
    const o = await owner();
    await put(o.handle.toUpperCase(), { proofs: ['x:y'] }, authFor(o)).expect(204);
    expect(await storedProofs(o.handle)).toEqual(['x:y']);
  });

  it('also takes a signature over the path as spelled, and no other spelling', async () => {
    const o = await owner();
    const upper = o.handle.toUpperCase();
    await put(upper, { proofs: ['x:y'] }, authFor(o, NOW_S, authLines.setProofs(upper))).expect(
      204,
    );
    expect(await storedProofs(o.handle)).toEqual(['x:y']);
    const other = `${upper[0]}${o.handle.slice(1)}`;
    const res = await put(
      upper,
      { proofs: ['z:w'] },
      authFor(o, NOW_S, authLines.setProofs(other)),
    );
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      error: { code: 'unauthorized', message: 'signature did not verify' },
    });
    expect(await storedProofs(o.handle)).toEqual(['x:y']);
  });

  it('accepts 64 proofs and an entry of 512 characters', async () => {
    const o = await owner();
    const proofs = Array.from({ length: 64 }, (_, i) => `ch${i}:id${i}`);
    proofs[0] = `web:${'x'.repeat(508)}`;
    await put(o.handle, { proofs }, authFor(o)).expect(204);
    expect(await storedProofs(o.handle)).toEqual(proofs);
  });

  it('accepts 64 proofs of 512 non-ASCII characters, however the client escapes them', async () => {
    const o = await owner();
    const proofs = Array.from({ length: 64 }, (_, i) => `名${i}:${'é'.repeat(508)}`);
    await put(o.handle, { proofs }, authFor(o)).expect(204);
    expect(await storedProofs(o.handle)).toEqual(proofs);
    const reversed = [...proofs].reverse();
    await request(t.app)
      .put(`/v1/profile/${o.handle}/proofs`)
      .set('X-ID-Auth', authFor(o))
      .set('Content-Type', 'application/json')
      .send(asciiJson({ proofs: reversed }))
      .expect(204);
    expect(await storedProofs(o.handle)).toEqual(reversed);
  });

  it('counts a proof’s length in characters, so 512 characters outside the BMP fit', async () => {
    const o = await owner();
    const proofs = [`😀:${'😀'.repeat(510)}`];
    await put(o.handle, { proofs }, authFor(o)).expect(204);
    expect(await storedProofs(o.handle)).toEqual(proofs);
  });

  it.each([-60, 60])('accepts an auth timestamp %i s from server time', async (skew) => {
    const o = await owner();
    await put(o.handle, { proofs: ['a:b'] }, authFor(o, NOW_S + skew)).expect(204);
  });
});

describe('PUT /v1/profile/{handle}/proofs: order of checks', () => {
  it.each(['ab', 'admin', '_bad', 'bad.handle'])(
    'answers 400 for the invalid handle %s before anything else',
    async (handle) => {
      const res = await put(handle, 'not json').expect(400);
      expect((res.body as ErrorBody).error.code).toBe('bad_request');
    },
  );

  it('names the broken handle rule', async () => {
    const res = await put('root', { proofs: [] }).expect(400);
    expect(res.body).toEqual(err('bad_request', 'handle root is reserved'));
  });

  it('answers 404 for an unknown handle before checking auth', async () => {
    const res = await put(uniqueHandle(), { proofs: [] }).expect(404);
    expect(res.body).toEqual(err('not_found', 'handle not found'));
  });

  it('answers 401 without X-ID-Auth, before looking at the body', async () => {
    const o = await owner();
    const tooMany = Array.from({ length: 65 }, (_, i) => `a:${i}`);
    const res = await put(o.handle, { proofs: tooMany }).expect(401);
    expect(res.body).toEqual(err('unauthorized', 'missing X-ID-Auth header'));
  });

  it.each(['nocolon', 'abc:def', '12.5:abcd', ':abcd', ''])(
    'answers 401 for the malformed auth value %j',
    async (value) => {
      const o = await owner();
      const res = await put(o.handle, { proofs: [] }, value).expect(401);
      expect((res.body as ErrorBody).error.code).toBe('unauthorized');
    },
  );

  it.each([-61, 61, -3600])('answers 401 stale for a timestamp %i s away', async (skew) => {
    const o = await owner();
    const res = await put(o.handle, { proofs: ['a:b'] }, authFor(o, NOW_S + skew)).expect(401);
    expect(res.body).toEqual(err('unauthorized', 'auth header is stale'));
    expect(await storedProofs(o.handle)).toEqual([]);
  });

  it('answers 401 for a signature by another key', async () => {
    const o = await owner();
    const stranger = generateKeyPair();
    const auth = signedAuthValue(stranger.secretKey, authLines.setProofs(o.handle), NOW_S);
    const res = await put(o.handle, { proofs: ['a:b'] }, auth).expect(401);
    expect(res.body).toEqual(err('unauthorized', 'signature did not verify'));
    expect(await storedProofs(o.handle)).toEqual([]);
  });

  it('answers 401 for a replayed inbox signature', async () => {
    const o = await owner();
    const inboxAuth = authFor(o, NOW_S, authLines.inbox(o.handle, 0));
    const res = await put(o.handle, { proofs: ['a:b'] }, inboxAuth).expect(401);
    expect(res.body).toEqual(err('unauthorized', 'signature did not verify'));
  });

  it('answers 401 for a proofs signature made for another handle', async () => {
    const o = await owner();
    const other = await owner();
    const res = await put(
      o.handle,
      { proofs: ['a:b'] },
      authFor(other, NOW_S, authLines.setProofs(o.handle)),
    ).expect(401);
    expect(res.body).toEqual(err('unauthorized', 'signature did not verify'));
  });

  it('answers 401 when the signed timestamp differs from the header timestamp', async () => {
    const o = await owner();
    const sig = authFor(o, NOW_S).split(':')[1];
    const res = await put(o.handle, { proofs: ['a:b'] }, `${NOW_S + 1}:${sig}`).expect(401);
    expect(res.body).toEqual(err('unauthorized', 'signature did not verify'));
  });

  it('answers 400 for 65 proofs after auth passes, and keeps the old list', async () => {
    const o = await owner();
    await put(o.handle, { proofs: ['keep:me'] }, authFor(o)).expect(204);
    const proofs = Array.from({ length: 65 }, (_, i) => `a:${i}`);
    const res = await put(o.handle, { proofs }, authFor(o)).expect(400);
    expect(res.body).toEqual(err('bad_request', 'too many proofs (max 64)'));
    expect(await storedProofs(o.handle)).toEqual(['keep:me']);
  });

  it('counts proofs before checking entries', async () => {
    const o = await owner();
    const res = await put(o.handle, { proofs: Array<number>(65).fill(1) }, authFor(o)).expect(400);
    expect(res.body).toEqual(err('bad_request', 'too many proofs (max 64)'));
  });
});

describe('PUT /v1/profile/{handle}/proofs: body', () => {
  it.each([
    ['malformed JSON', '{"proofs": [', 'malformed JSON body'],
    ['no body', undefined, 'body must be a JSON object { proofs: [string] }'],
    ['proofs not an array', { proofs: 'a:b' }, 'proofs must be an array of strings'],
    ['a non-string entry', { proofs: ['a:b', 7] }, 'each proof must be a string'],
    [
      'an entry without a colon',
      { proofs: ['github'] },
      'each proof must look like <channel>:<identifier>',
    ],
    [
      'an empty channel',
      { proofs: [':alice'] },
      'each proof must look like <channel>:<identifier>',
    ],
    [
      'an empty identifier',
      { proofs: ['github:'] },
      'each proof must look like <channel>:<identifier>',
    ],
    [
      'an entry of 513 characters',
      { proofs: [`web:${'x'.repeat(509)}`] },
      'each proof must be at most 512 characters',
    ],
    [
      'an entry holding a NUL character',
      { proofs: ['web:a\u0000b'] },
      'each proof must not contain NUL characters or lone surrogates',
    ],
    [
      'an entry holding a lone surrogate',
      { proofs: ['web:a\ud800b'] },
      'each proof must not contain NUL characters or lone surrogates',
    ],
  ])('answers 400 for %s and keeps the old list', async (_name, body, message) => {
    const o = await owner();
    await put(o.handle, { proofs: ['keep:me'] }, authFor(o)).expect(204);
    const req = request(t.app)
      .put(`/v1/profile/${o.handle}/proofs`)
      .set('X-ID-Auth', authFor(o))
      .set('Content-Type', 'application/json');
    const res = await (body === undefined ? req : req.send(typeof body === 'string' ? body : body));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(err('bad_request', message));
    expect(await storedProofs(o.handle)).toEqual(['keep:me']);
  });

  it('answers 405 for another method', async () => {
    const res = await request(t.app).post('/v1/profile/alice/proofs').expect(405);
    expect(res.headers.allow).toBe('PUT');
  });
});
