import request from 'supertest';
import nacl from 'tweetnacl';
import {
  generateKeyPair,
  primaryOf,
  signJcs,
  toHex,
  type RegistrationEnvelope,
} from '../src/client/index.js';
import {
  badRequest,
  handleRows,
  postRegistration,
  registration,
  uniqueHandle,
} from './handle-factories.js';
import type { ErrorBody } from './handle-factories.js';
import type { HandleRecord } from '../src/handles/handle-record.js';
import { useTestApp } from './test-app.js';

const SERVER = 'relay.test';
const NOW_MS = 1_800_000_000_500;
const NOW_S = Math.floor(NOW_MS / 1000);
const MILLIS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const t = useTestApp('registration_envelope', {}, { clockMs: NOW_MS });

const post = (body: unknown) => postRegistration(t.app, body);
const rowsFor = (handle: string) => handleRows(t.store.db, handle);

/** Re-signs a payload with the given keys, keeping the signature's claimed key. */
function resigned(body: RegistrationEnvelope, secretKey: Uint8Array): RegistrationEnvelope {
  return { ...body, signature: { ...body.signature, sig: signJcs(body.payload, secretKey) } };
}

describe('POST /v1/register: a valid claim', () => {
  it('answers 201 with the handle record and stores it', async () => {
    const handle = uniqueHandle();
    const { keys, body } = registration(SERVER, handle, { ts: NOW_S });
    const primary = primaryOf(keys.publicKey);
    const res = await post(body).expect(201);
    expect(res.body).toEqual({
      handle,
      fqhn: `${handle}@${SERVER}`,
      primary,
      sigchain_url: `http://localhost:8090/v1/sigchains/ed25519/${toHex(keys.publicKey)}`,
      registered_at: new Date(NOW_MS).toISOString(),
      proofs: [],
    });
    expect((res.body as HandleRecord).registered_at).toMatch(MILLIS_UTC);
    expect((res.body as HandleRecord).registered_at).toBe('2027-01-15T08:00:00.500Z');
    const rows = await rowsFor(handle);
    expect(rows).toEqual([
      { handle, primary_key: primary, registered_at: new Date(NOW_MS), proofs: [] },
    ]);
  });

  it('accepts extra payload fields, which are covered by the signature', async () => {
    const handle = uniqueHandle();
    const keys = generateKeyPair();
    const payload = {
      server: SERVER,
      handle,
      primary: primaryOf(keys.publicKey),
      ts: NOW_S,
      note: { hello: ['world', 1] },
    };
    const body = {
      payload,
      signature: {
        alg: 'ed25519-sha512-jcs',
        key: payload.primary,
        sig: signJcs(payload, keys.secretKey),
      },
    };
    await post(body).expect(201);
    const tampered = { ...body, payload: { ...payload, handle: uniqueHandle(), note: 'changed' } };
    const res = await post(tampered).expect(400);
    expect(res.body).toEqual(badRequest('registration signature did not verify'));
  });

  it('verifies the RFC 8785 form of a payload holding a toJSON member, keys sorted inside it too', async () => {
    const handle = uniqueHandle();
    const keys = generateKeyPair();
    const primary = primaryOf(keys.publicKey);
    // As a strict RFC 8785 signer writes it, by hand: every object's keys sorted.
    const canonical =
      `{"extra":{"a":[{"toJSON":0,"x":2,"y":1}],"b":1,"toJSON":{"a":2,"z":1}},` +
      `"handle":"${handle}","primary":"${primary}","server":"${SERVER}","ts":${NOW_S}}`;
    const sig = toHex(nacl.sign.detached(new TextEncoder().encode(canonical), keys.secretKey));
    // Sent with the keys in another order.
    const text =
      `{"payload":{"ts":${NOW_S},"server":"${SERVER}","primary":"${primary}","handle":"${handle}",` +
      `"extra":{"b":1,"toJSON":{"z":1,"a":2},"a":[{"toJSON":0,"y":1,"x":2}]}},` +
      `"signature":{"alg":"ed25519-sha512-jcs","key":"${primary}","sig":"${sig}"}}`;
    await request(t.app)
      .post('/v1/register')
      .set('Content-Type', 'application/json')
      .send(text)
      .expect(201);
    expect(await rowsFor(handle)).toHaveLength(1);
  });

  it('stores a primary given in uppercase hex as lowercase', async () => {
    const handle = uniqueHandle();
    const keys = generateKeyPair();
    const upper = `ed25519:${toHex(keys.publicKey).toUpperCase()}`;
    const payload = { server: SERVER, handle, primary: upper, ts: NOW_S };
    const body = {
      payload,
      signature: { alg: 'ed25519-sha512-jcs', key: upper, sig: signJcs(payload, keys.secretKey) },
    };
    const res = await post(body).expect(201);
    expect((res.body as HandleRecord).primary).toBe(primaryOf(keys.publicKey));
  });

  it('refuses the server name in another letter case: it must equal the configured one', async () => {
    const { body } = registration('RELAY.Test', uniqueHandle(), { ts: NOW_S });
    const res = await post(body).expect(400);
    expect(res.body).toEqual(
      badRequest('registration server RELAY.Test does not match this server relay.test'),
    );
  });
});

describe('POST /v1/register: (a) envelope and signature', () => {
  it('refuses a malformed JSON body', async () => {
    const res = await request(t.app)
      .post('/v1/register')
      .set('Content-Type', 'application/json')
      .send('{"payload":')
      .expect(400);
    expect(res.body).toEqual(badRequest('malformed JSON body'));
  });

  it('refuses an empty body', async () => {
    const res = await request(t.app).post('/v1/register').expect(400);
    expect(res.body).toEqual(badRequest('request body must be a signed registration'));
  });

  it.each([
    [
      'no payload',
      (b: RegistrationEnvelope) => ({ signature: b.signature }),
      'payload must be an object',
    ],
    [
      'no signature',
      (b: RegistrationEnvelope) => ({ payload: b.payload }),
      'signature must be an object',
    ],
    [
      'a non-string handle',
      (b: RegistrationEnvelope) => ({ ...b, payload: { ...b.payload, handle: 7 } }),
      'payload.handle must be a string',
    ],
    [
      'a fractional ts',
      (b: RegistrationEnvelope) => ({ ...b, payload: { ...b.payload, ts: 1.5 } }),
      'payload.ts must be an integer (Unix seconds)',
    ],
    [
      'a string ts',
      (b: RegistrationEnvelope) => ({ ...b, payload: { ...b.payload, ts: String(NOW_S) } }),
      'payload.ts must be an integer (Unix seconds)',
    ],
    [
      'no sig',
      (b: RegistrationEnvelope) => ({
        ...b,
        signature: { alg: b.signature.alg, key: b.signature.key },
      }),
      'signature.sig must be a string',
    ],
  ])('refuses a body with %s', async (_name, mutate, message) => {
    const { body } = registration(SERVER, uniqueHandle(), { ts: NOW_S });
    const res = await post(mutate(body)).expect(400);
    expect(res.body).toEqual(badRequest(message));
  });

  it('refuses an unsupported signature alg', async () => {
    const { body } = registration(SERVER, uniqueHandle(), { ts: NOW_S });
    const res = await post({ ...body, signature: { ...body.signature, alg: 'rsa-sha256' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      badRequest('unsupported signature alg rsa-sha256 (expected ed25519-sha512-jcs)'),
    );
  });

  it.each([
    ['another scheme', (hex: string) => `x25519:${hex}`],
    ['a 31-byte key', (hex: string) => `ed25519:${hex.slice(2)}`],
    ['non-hex', (hex: string) => `ed25519:${'g'.repeat(hex.length)}`],
  ])('refuses a signature key with %s', async (_name, makeKey) => {
    const { keys, body } = registration(SERVER, uniqueHandle(), { ts: NOW_S });
    const key = makeKey(toHex(keys.publicKey));
    const payload = { ...body.payload, primary: key };
    const res = await post({
      payload,
      signature: { ...body.signature, key, sig: signJcs(payload, keys.secretKey) },
    }).expect(400);
    expect(res.body).toEqual(badRequest('signature.key must be ed25519:<64 hex characters>'));
  });

  it('refuses a signature key that differs from payload.primary', async () => {
    const { body } = registration(SERVER, uniqueHandle(), { ts: NOW_S });
    const other = generateKeyPair();
    const res = await post({
      ...body,
      signature: { ...body.signature, key: primaryOf(other.publicKey) },
    }).expect(400);
    expect(res.body).toEqual(badRequest('signature.key must equal payload.primary'));
  });

  it('refuses a key of small order, whose forged signature would verify anything', async () => {
    const handle = uniqueHandle();
    const primary = `ed25519:01${'00'.repeat(31)}`;
    const body = {
      payload: { server: SERVER, handle, primary, ts: NOW_S },
      signature: { alg: 'ed25519-sha512-jcs', key: primary, sig: `01${'00'.repeat(63)}` },
    };
    const res = await post(body).expect(400);
    expect(res.body).toEqual(badRequest('registration signature did not verify'));
    expect(await rowsFor(handle)).toEqual([]);
  });

  const DEEP = 20_000;
  const INFINITE = 'registration payload holds a number outside what RFC 8785 can write';
  it.each([
    [
      'nested too deeply to canonicalize',
      `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`,
      'registration payload is nested too deeply to canonicalize',
    ],
    ['holding 1e400, which JSON reads as an infinity', '1e400', INFINITE],
    ['holding -1e400', '-1e400', INFINITE],
    ['holding [1e999]', '[1e999]', INFINITE],
  ])('refuses a payload %s, and stores nothing', async (_what, extra, message) => {
    const { body } = registration(SERVER, uniqueHandle(), { ts: NOW_S });
    const payload = JSON.stringify({ ...body.payload, extra: 0 }).replace(
      '"extra":0',
      `"extra":${extra}`,
    );
    const res = await request(t.app)
      .post('/v1/register')
      .set('Content-Type', 'application/json')
      .send(`{"payload":${payload},"signature":${JSON.stringify(body.signature)}}`)
      .expect(400);
    expect(res.body).toEqual(badRequest(message));
    expect(await rowsFor(body.payload.handle)).toEqual([]);
  });

  it('refuses a payload changed after signing', async () => {
    const { body } = registration(SERVER, uniqueHandle(), { ts: NOW_S });
    const handle = uniqueHandle();
    const res = await post({ ...body, payload: { ...body.payload, handle } }).expect(400);
    expect(res.body).toEqual(badRequest('registration signature did not verify'));
    expect(await rowsFor(handle)).toEqual([]);
  });

  it('refuses a payload signed by a key other than the one it names', async () => {
    const { body } = registration(SERVER, uniqueHandle(), { ts: NOW_S });
    const res = await post(resigned(body, generateKeyPair().secretKey)).expect(400);
    expect(res.body).toEqual(badRequest('registration signature did not verify'));
  });

  it('refuses a garbled signature', async () => {
    const { body } = registration(SERVER, uniqueHandle(), { ts: NOW_S });
    const res = await post({ ...body, signature: { ...body.signature, sig: 'zz' } }).expect(400);
    expect(res.body).toEqual(badRequest('registration signature did not verify'));
  });

  it('checks the signature before the server name', async () => {
    const { body } = registration('other.test', uniqueHandle(), { ts: NOW_S });
    const res = await post(resigned(body, generateKeyPair().secretKey)).expect(400);
    expect(res.body).toEqual(badRequest('registration signature did not verify'));
  });
});

describe('POST /v1/register: (b) server', () => {
  it('refuses a registration for another server', async () => {
    const { body } = registration('other.test', uniqueHandle(), { ts: NOW_S });
    const res = await post(body).expect(400);
    expect(res.body).toEqual(
      badRequest('registration server other.test does not match this server relay.test'),
    );
  });

  it('checks the server before the handle rules', async () => {
    const { body } = registration('other.test', 'ADMIN', { ts: NOW_S });
    const res = await post(body).expect(400);
    expect((res.body as ErrorBody).error.message).toMatch(/does not match this server/);
  });
});
