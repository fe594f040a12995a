import { Ajv2020 } from 'ajv/dist/2020.js';
import request from 'supertest';
import {
  authLines,
  generateKeyPair,
  signedAuthValue,
  signJcs,
  toHex,
} from '../src/client/index.js';
import { registerHandle, registration, uniqueHandle } from './handle-factories.js';
import { createOpenApiValidator, type OpenApiValidator } from './openapi-validator.js';
import { createTestApp, SETUP_TIMEOUT_MS, type TestApp } from './test-app.js';

const SERVER = 'relay.test';

let t: TestApp;
let api: OpenApiValidator;
let doc: Record<string, unknown>;
beforeAll(async () => {
  t = await createTestApp('openapi');
  const res = await request(t.app).get('/openapi.json').expect(200);
  doc = res.body as Record<string, unknown>;
  api = createOpenApiValidator(doc);
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  await t.close();
}, SETUP_TIMEOUT_MS);

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document carrying the service version', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'handle-relay', version: '0.1.0' });
  });

  it('documents every identity endpoint', () => {
    expect(Object.keys(doc.paths as object)).toEqual(
      expect.arrayContaining([
        '/',
        '/openapi.json',
        '/metrics',
        '/v1/healthz',
        '/v1/register',
        '/v1/u/{handle}',
        '/v1/by-primary/{primary}',
        '/v1/profile/{handle}/proofs',
        '/.well-known/webfinger',
        '/internal/nats/auth',
      ]),
    );
  });

  it('rejects a response that breaks it (the validator can fail)', () => {
    const fake = { status: 200, headers: { 'content-type': 'application/json' }, text: '{}' };
    expect(() => api.check('GET', '/v1/healthz', fake as never)).toThrow(/does not match/);
    expect(() => api.check('GET', '/v1/healthz', { ...fake, status: 418 } as never)).toThrow(
      /not documented/,
    );
  });
});

describe('request bodies the service takes match the document', () => {
  it('a registration whose primary is in uppercase hex', async () => {
    const keys = generateKeyPair();
    const upper = `ed25519:${toHex(keys.publicKey).toUpperCase()}`;
    const payload = {
      server: SERVER,
      handle: uniqueHandle(),
      primary: upper,
      ts: Math.floor(Date.now() / 1000),
    };
    const body = {
      payload,
      signature: { alg: 'ed25519-sha512-jcs', key: upper, sig: signJcs(payload, keys.secretKey) },
    };
    api.check('POST', '/v1/register', await request(t.app).post('/v1/register').send(body));
    expect((await request(t.app).get(`/v1/u/${payload.handle}`)).status).toBe(200);
    api.checkRequest('POST', '/v1/register', body);
    const broken = { ...body, payload: { ...payload, primary: 'ed25519:xyz' } };
    expect(() => api.checkRequest('POST', '/v1/register', broken)).toThrow(/does not match/);
  });
});

describe('real responses match the document', () => {
  it('health, registration and lookups', async () => {
    api.check('GET', '/v1/healthz', await request(t.app).get('/v1/healthz'));
    const { keys, body } = registration(SERVER, uniqueHandle());
    const created = await request(t.app).post('/v1/register').send(body);
    api.check('POST', '/v1/register', created);
    api.check('POST', '/v1/register', await request(t.app).post('/v1/register').send(body));
    api.check(
      'POST',
      '/v1/register',
      await request(t.app)
        .post('/v1/register')
        .send({ ...body, signature: { ...body.signature, alg: 'x' } }),
    );
    const handle = body.payload.handle;
    api.check('GET', '/v1/u/{handle}', await request(t.app).get(`/v1/u/${handle}`));
    api.check('GET', '/v1/u/{handle}', await request(t.app).get('/v1/u/nobody-here'));
    const primary = body.payload.primary;
    api.check(
      'GET',
      '/v1/by-primary/{primary}',
      await request(t.app).get(`/v1/by-primary/${primary}`),
    );
    api.check('GET', '/v1/by-primary/{primary}', await request(t.app).get('/v1/by-primary/x'));
    api.check(
      'GET',
      '/v1/by-primary/{primary}',
      await request(t.app).get(`/v1/by-primary/ed25519:${'0'.repeat(64)}`),
    );
    expect(keys.publicKey).toHaveLength(32);
  });

  it('proofs', async () => {
    const o = await registerHandle(t.app, SERVER);
    const path = `/v1/profile/${o.handle}/proofs`;
    const auth = signedAuthValue(o.keys.secretKey, authLines.setProofs(o.handle));
    const tpl = '/v1/profile/{handle}/proofs';
    api.check(
      'PUT',
      tpl,
      await request(t.app)
        .put(path)
        .set('X-ID-Auth', auth)
        .send({ proofs: ['a:b'] }),
    );
    api.check('PUT', tpl, await request(t.app).put(path).send({ proofs: [] }));
    api.check('PUT', tpl, await request(t.app).put('/v1/profile/ab/proofs').send({ proofs: [] }));
    api.check('PUT', tpl, await request(t.app).put(`/v1/profile/${uniqueHandle()}/proofs`));
    api.check(
      'PUT',
      tpl,
      await request(t.app)
        .put(path)
        .set('X-ID-Auth', auth)
        .send({ proofs: Array(65).fill('a:b') }),
    );
    api.check('GET', '/v1/u/{handle}', await request(t.app).get(`/v1/u/${o.handle}`));
  });

  it('HTTP edges: a Content-Encoding it cannot read (415), broken percent-encoding (400)', async () => {
    const bodyRoutes: [string, string, string][] = [
      ['POST', '/v1/register', '/v1/register'],
      ['PUT', '/v1/profile/{handle}/proofs', '/v1/profile/abcd/proofs'],
      ['POST', '/v1/push/subscribe/{handle}', '/v1/push/subscribe/abcd'],
      ['POST', '/v1/push/unsubscribe/{handle}', '/v1/push/unsubscribe/abcd'],
      ['POST', '/v1/messages', '/v1/messages'],
    ];
    for (const [method, tpl, path] of bodyRoutes) {
      const res = await request(t.app)
        [method === 'PUT' ? 'put' : 'post'](path)
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', 'x-unknown')
        .send('{}');
      expect(res.status).toBe(415);
      api.check(method, tpl, res);
    }
    const paramRoutes: [string, string][] = [
      ['/v1/u/{handle}', '/v1/u/%E0%A4%A'],
      ['/v1/by-primary/{primary}', '/v1/by-primary/%E0%A4%A'],
      ['/v1/inbox/{handle}', '/v1/inbox/%E0%A4%A'],
      ['/v1/inbox/{handle}/stream', '/v1/inbox/%E0%A4%A/stream'],
    ];
    for (const [tpl, path] of paramRoutes) {
      const res = await request(t.app).get(path);
      expect(res.status).toBe(400);
      api.check('GET', tpl, res);
    }
  });

  it('WebFinger, the web root, the callout and this document', async () => {
    const o = await registerHandle(t.app, SERVER);
    const wf = '/.well-known/webfinger';
    api.check(
      'GET',
      wf,
      await request(t.app)
        .get(wf)
        .query({ resource: `acct:${o.handle}@${SERVER}` }),
    );
    api.check('GET', wf, await request(t.app).get(wf).query({ resource: 'x' }));
    api.check('GET', wf, await request(t.app).get(wf).query({ resource: 'acct:a@other' }));
    api.check('GET', '/', await request(t.app).get('/'));
    api.check('POST', '/internal/nats/auth', await request(t.app).post('/internal/nats/auth'));
    api.check('GET', '/openapi.json', await request(t.app).get('/openapi.json'));
    api.check('GET', '/metrics', await request(t.app).get('/metrics'));
  });
});

describe('parameters in the document are held to the rules the relay applies', () => {
  const paramSchema = (path: string, name: string) => {
    const paths = doc.paths as Record<
      string,
      { get: { parameters: { name: string; schema: object }[] } }
    >;
    return paths[path]!.get.parameters.find((p) => p.name === name)!.schema;
  };
  const ajvAccepts = (schema: object, value: unknown) =>
    new Ajv2020({ strict: false }).validate(schema, value);

  it('a path handle: refused by the document exactly when the relay answers 400', async () => {
    const schema = paramSchema('/v1/inbox/{handle}', 'handle');
    for (const handle of [
      'abc',
      'Abc-D_9',
      'admin',
      'ADMIN',
      'admins',
      'ab',
      'a'.repeat(33),
      '-ab',
    ]) {
      const res = await request(t.app).get(`/v1/inbox/${handle}`);
      expect([handle, res.status === 400]).toEqual([handle, !ajvAccepts(schema, handle)]);
    }
  });

  it('the inbox cursor: at most 15 digits, in the document as in the relay', async () => {
    const o = await registerHandle(t.app, SERVER);
    const schema = paramSchema('/v1/inbox/{handle}', 'since');
    for (const since of [999_999_999_999_999, 1_000_000_000_000_000]) {
      const auth = signedAuthValue(o.keys.secretKey, authLines.inbox(o.handle, since));
      const res = await request(t.app)
        .get(`/v1/inbox/${o.handle}?since=${since}`)
        .set('X-ID-Auth', auth);
      expect([since, res.status === 400]).toEqual([since, !ajvAccepts(schema, since)]);
    }
  });
});
