import request from 'supertest';
import { toHex } from '../src/client/index.js';
import { registerHandle, uniqueHandle } from './handle-factories.js';
import { useTestApp } from './test-app.js';

const SERVER = 'relay.test';

const t = useTestApp('webfinger', { spec_base: 'https://spec.example/base/' });

function finger(resource?: string) {
  const req = request(t.app).get('/.well-known/webfinger');
  return resource === undefined ? req : req.query({ resource });
}

const err = (code: string, message: string) => ({ error: { code, message } });

describe('GET /.well-known/webfinger', () => {
  it('answers the JRD with both links, as application/jrd+json readable from any origin', async () => {
    const { handle, keys } = await registerHandle(t.app, SERVER);
    const res = await finger(`acct:${handle}@${SERVER}`).expect(200);
    expect(res.headers['content-type']).toBe('application/jrd+json');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(JSON.parse(res.text)).toEqual({
      subject: `acct:${handle}@${SERVER}`,
      links: [
        {
          rel: 'https://spec.example/base/v1/handle',
          type: 'application/json',
          href: `https://${SERVER}/v1/u/${handle}`,
        },
        {
          rel: 'https://spec.example/base/v1/sigchain',
          type: 'application/jsonl',
          href: `http://localhost:8090/v1/sigchains/ed25519/${toHex(keys.publicKey)}`,
        },
      ],
    });
  });

  it('folds the case of the handle and compares the server case-insensitively', async () => {
    const { handle } = await registerHandle(t.app, SERVER);
    const res = await finger(`acct:${handle.toUpperCase()}@RELAY.TEST`).expect(200);
    expect((JSON.parse(res.text) as { subject: string }).subject).toBe(`acct:${handle}@${SERVER}`);
  });

  it('answers 404 for a handle spelled with a non-ASCII look-alike (Kelvin sign for k)', async () => {
    const { handle } = await registerHandle(t.app, SERVER, uniqueHandle('kelvin'));
    const res = await finger(`acct:\u212A${handle.slice(1)}@${SERVER}`).expect(404);
    expect(res.body).toEqual(err('not_found', 'handle not found'));
  });

  it('matches the acct: scheme in any letter case, as URI schemes are', async () => {
    const { handle } = await registerHandle(t.app, SERVER);
    const res = await finger(`ACCT:${handle}@${SERVER}`).expect(200);
    expect((JSON.parse(res.text) as { subject: string }).subject).toBe(`acct:${handle}@${SERVER}`);
  });

  it('answers 400 without resource', async () => {
    const res = await finger().expect(400);
    expect(res.body).toEqual(err('bad_request', 'missing resource query parameter'));
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it.each(['alice@relay.test', 'mailto:alice@relay.test', 'https://relay.test/alice'])(
    'answers 400 for %s (no acct: prefix)',
    async (resource) => {
      const res = await finger(resource).expect(400);
      expect(res.body).toEqual(err('bad_request', 'resource must start with acct:'));
    },
  );

  it.each(['acct:alice', 'acct:alice.relay.test', 'acct:'])(
    'answers 400 for %s (no @ between handle and server)',
    async (resource) => {
      const res = await finger(resource).expect(400);
      expect(res.body).toEqual(err('bad_request', 'resource must be acct:<handle>@<server>'));
    },
  );

  it('answers 404 when the server part names another server, or none', async () => {
    const { handle } = await registerHandle(t.app, SERVER);
    for (const resource of [`acct:${handle}@other.test`, `acct:${handle}@`]) {
      const res = await finger(resource).expect(404);
      expect(res.body).toEqual(err('not_found', 'resource is not on this server'));
    }
  });

  it.each([uniqueHandle(), 'admin', 'x', '', 'a@b'])(
    'answers 404 for the unregistered handle %s',
    async (h) => {
      const res = await finger(`acct:${h}@${SERVER}`).expect(404);
      expect(res.body).toEqual(err('not_found', 'handle not found'));
    },
  );

  it('answers 405 for another method', async () => {
    const res = await request(t.app).post('/.well-known/webfinger').expect(405);
    expect(res.headers.allow).toBe('GET');
  });
});
