import request from 'supertest';
import { authLines, signedAuthValue } from '../src/client/index.js';
import { registerHandle, uniqueHandle } from './handle-factories.js';
import { createOpenApiValidator, type OpenApiValidator } from './openapi-validator.js';
import { browserKeys } from './push-endpoint.js';
import { createTestApp, SETUP_TIMEOUT_MS, type TestApp } from './test-app.js';

let t: TestApp;
let api: OpenApiValidator;
beforeAll(async () => {
  t = await createTestApp('relay_openapi', { push_allow_private_endpoints: true });
  const res = await request(t.app).get('/openapi.json').expect(200);
  api = createOpenApiValidator(res.body as Record<string, unknown>);
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  await t.close();
}, SETUP_TIMEOUT_MS);

describe('messaging responses match the OpenAPI document', () => {
  it('send and inbox', async () => {
    const o = await registerHandle(t.app, t.config.server);
    const send = (body: unknown) =>
      request(t.app)
        .post('/v1/messages')
        .send(body as object);
    api.check('POST', '/v1/messages', await send({ to: o.handle, envelope: { a: 1 } }));
    api.check('POST', '/v1/messages', await send({ to: o.handle }));
    api.check('POST', '/v1/messages', await send({ to: uniqueHandle(), envelope: 1 }));
    api.check('POST', '/v1/messages', await send({ to: o.handle, envelope: 'x'.repeat(262_144) }));
    const tpl = '/v1/inbox/{handle}';
    const auth = signedAuthValue(o.keys.secretKey, authLines.inbox(o.handle, 0));
    api.check('GET', tpl, await request(t.app).get(`/v1/inbox/${o.handle}`).set('X-ID-Auth', auth));
    api.check('GET', tpl, await request(t.app).get(`/v1/inbox/${o.handle}?limit=0`));
    api.check('GET', tpl, await request(t.app).get(`/v1/inbox/${o.handle}`));
    api.check('GET', tpl, await request(t.app).get(`/v1/inbox/${uniqueHandle()}`));
    const stream = '/v1/inbox/{handle}/stream';
    api.check('GET', stream, await request(t.app).get(`/v1/inbox/${o.handle}/stream`));
    api.check('GET', stream, await request(t.app).get(`/v1/inbox/${o.handle}/stream?auth=1:2`));
    api.check('GET', stream, await request(t.app).get(`/v1/inbox/${uniqueHandle()}/stream`));
  });

  it('push key, subscribe and unsubscribe', async () => {
    api.check(
      'GET',
      '/v1/push/vapid-public-key',
      await request(t.app).get('/v1/push/vapid-public-key'),
    );
    const o = await registerHandle(t.app, t.config.server);
    const k = browserKeys();
    const endpoint = 'http://127.0.0.1:9/push/openapi';
    const sign = (verb: 'subscribe' | 'unsubscribe', e: string) =>
      signedAuthValue(o.keys.secretKey, authLines.push(verb, o.handle, e));
    const sub = '/v1/push/subscribe/{handle}';
    const path = `/v1/push/subscribe/${o.handle}`;
    api.check(
      'POST',
      sub,
      await request(t.app)
        .post(path)
        .set('X-ID-Auth', sign('subscribe', endpoint))
        .send({ endpoint, p256dh: k.p256dh, auth: k.auth }),
    );
    api.check('POST', sub, await request(t.app).post(path).send({ endpoint }));
    api.check(
      'POST',
      sub,
      await request(t.app)
        .post(path)
        .set('X-ID-Auth', sign('subscribe', 'ftp://x'))
        .send({ endpoint: 'ftp://x', p256dh: k.p256dh, auth: k.auth }),
    );
    api.check(
      'POST',
      sub,
      await request(t.app).post(`/v1/push/subscribe/${uniqueHandle()}`).send({}),
    );
    const unsub = '/v1/push/unsubscribe/{handle}';
    api.check(
      'POST',
      unsub,
      await request(t.app)
        .post(`/v1/push/unsubscribe/${o.handle}`)
        .set('X-ID-Auth', sign('unsubscribe', endpoint))
        .send({ endpoint }),
    );
    api.check(
      'POST',
      unsub,
      await request(t.app).post(`/v1/push/unsubscribe/${o.handle}`).send({ endpoint }),
    );
  });

  it('a subscription carrying both shapes: the document takes it as the browser shape, as the relay does', async () => {
    const o = await registerHandle(t.app, t.config.server);
    const k = browserKeys();
    const endpoint = 'http://127.0.0.1:9/push/both-shapes';
    const body = {
      endpoint,
      p256dh: 'AAAA',
      auth: 'BBBB',
      keys: { p256dh: k.p256dh, auth: k.auth },
    };
    api.checkRequest('POST', '/v1/push/subscribe/{handle}', body);
    const res = await request(t.app)
      .post(`/v1/push/subscribe/${o.handle}`)
      .set(
        'X-ID-Auth',
        signedAuthValue(o.keys.secretKey, authLines.push('subscribe', o.handle, endpoint)),
      )
      .send(body);
    expect(res.status).toBe(204);
    const flatWithKeys = { endpoint, p256dh: k.p256dh, auth: k.auth, keys: {} };
    expect(() => api.checkRequest('POST', '/v1/push/subscribe/{handle}', flatWithKeys)).toThrow(
      /does not match/,
    );
    const refused = await request(t.app)
      .post(`/v1/push/subscribe/${o.handle}`)
      .set(
        'X-ID-Auth',
        signedAuthValue(o.keys.secretKey, authLines.push('subscribe', o.handle, endpoint)),
      )
      .send(flatWithKeys);
    expect(refused.status).toBe(400);
  });
});
