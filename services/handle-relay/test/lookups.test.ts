import request from 'supertest';
import { toHex } from '../src/client/index.js';
import { registerHandle, uniqueHandle } from './handle-factories.js';
import { useTestApp } from './test-app.js';

const SERVER = 'relay.test';

const t = useTestApp('lookups');

const notFound = (message: string) => ({ error: { code: 'not_found', message } });

describe('GET /v1/u/{handle}', () => {
  it('answers the handle record', async () => {
    const { handle, keys, record } = await registerHandle(t.app, SERVER);
    const res = await request(t.app).get(`/v1/u/${handle}`).expect(200);
    expect(res.body).toEqual({
      handle,
      fqhn: `${handle}@${SERVER}`,
      primary: `ed25519:${toHex(keys.publicKey)}`,
      sigchain_url: `http://localhost:8090/v1/sigchains/ed25519/${toHex(keys.publicKey)}`,
      registered_at: record.registered_at,
      proofs: [],
    });
  });

  it('folds the case of the handle', async () => {
    const { handle, record } = await registerHandle(t.app, SERVER);
    const res = await request(t.app).get(`/v1/u/${handle.toUpperCase()}`).expect(200);
    expect(res.body).toEqual(record);
  });

  it('answers 404 for a handle nobody registered', async () => {
    const res = await request(t.app).get(`/v1/u/${uniqueHandle()}`).expect(404);
    expect(res.body).toEqual(notFound('handle not found'));
  });

  it.each(['ab', 'admin', '_x_', 'a.b.c', 'x'.repeat(40)])(
    'answers 404 (not 400) for the malformed or reserved handle %s',
    async (handle) => {
      const res = await request(t.app).get(`/v1/u/${handle}`).expect(404);
      expect(res.body).toEqual(notFound('handle not found'));
    },
  );

  it('folds only ASCII letters: the look-alike Kelvin sign (U+212A) is not a k', async () => {
    const { handle } = await registerHandle(t.app, SERVER, uniqueHandle('kelvin'));
    const lookAlike = `\u212A${handle.slice(1)}`;
    const res = await request(t.app)
      .get(`/v1/u/${encodeURIComponent(lookAlike)}`)
      .expect(404);
    expect(res.body).toEqual(notFound('handle not found'));
  });

  it('answers 405 for another method', async () => {
    const res = await request(t.app).delete('/v1/u/alice').expect(405);
    expect(res.headers.allow).toBe('GET');
  });
});

describe('GET /v1/by-primary/{primary}', () => {
  it('answers the record owned by the primary', async () => {
    const { record } = await registerHandle(t.app, SERVER);
    const res = await request(t.app).get(`/v1/by-primary/${record.primary}`).expect(200);
    expect(res.body).toEqual(record);
  });

  it('accepts the hex in uppercase', async () => {
    const { record } = await registerHandle(t.app, SERVER);
    const upper = `ed25519:${record.primary.slice('ed25519:'.length).toUpperCase()}`;
    const res = await request(t.app).get(`/v1/by-primary/${upper}`).expect(200);
    expect(res.body).toEqual(record);
  });

  it.each([
    'ed25519',
    'ed25519:',
    `ed25519:${'ab'.repeat(31)}`,
    `ed25519:${'ab'.repeat(33)}`,
    `ed25519:${'zz'.repeat(32)}`,
    `x25519:${'ab'.repeat(32)}`,
    'alice',
  ])('answers 400 for the unparsable primary %s', async (primary) => {
    const res = await request(t.app).get(`/v1/by-primary/${primary}`).expect(400);
    expect(res.body).toEqual({
      error: { code: 'bad_request', message: 'primary must be ed25519:<64 hex characters>' },
    });
  });

  it('answers 404 for a primary that owns no handle', async () => {
    const res = await request(t.app)
      .get(`/v1/by-primary/ed25519:${'cd'.repeat(32)}`)
      .expect(404);
    expect(res.body).toEqual(notFound('no handle for this primary'));
  });
});
