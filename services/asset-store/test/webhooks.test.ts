import request from 'supertest';
import { ingestData } from './asset-helpers.js';
import { changesPage } from './change-helpers.js';
import { useTestApp, variantApp } from './test-app.js';
import { WebhookReceiver } from './webhook-receiver.js';

const ADMIN = 'webhooks-admin-token';
const BASE = '/api/v1/can/0';
// Receivers here listen on 127.0.0.1; first retries after 0.2 s instead of 5 s (config).
const t = useTestApp('webhooks', {
  admin_token: ADMIN,
  webhook_allow_private: true,
  webhook_retry_first_seconds: 0.2,
});
const auth = { Authorization: `Bearer ${ADMIN}` };

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  t.runtime.services.webhookDispatcher.start();
});
afterAll(() => receiver.close());

interface Created {
  id: string;
  url: string;
  types: string[] | null;
  secret: string;
  created_at: number;
}

async function addWebhook(body: object): Promise<Created> {
  const res = await request(t.app).post(`${BASE}/admin/webhooks`).set(auth).send(body).expect(201);
  return (res.body as { data: Created }).data;
}

async function deliveries(id: string) {
  const res = await request(t.app)
    .get(`${BASE}/admin/webhooks/${id}/deliveries`)
    .set(auth)
    .expect(200);
  return (res.body as { data: { event_id: string; status: number | null; error: string | null }[] })
    .data;
}

/** The deliveries log of `id` once it holds `n` finished attempts (the outcome is written just after the receiver answers). */
async function settledDeliveries(id: string, n: number) {
  let log = await deliveries(id);
  for (let i = 0; i < 150 && log.filter((d) => d.status !== null).length < n; i++) {
    await new Promise((r) => setTimeout(r, 100));
    log = await deliveries(id);
  }
  return log;
}

async function metric(name: string): Promise<number> {
  const text = (await request(t.app).get('/metrics').expect(200)).text;
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : NaN;
}

describe('webhooks (admin)', () => {
  it('creates, lists and deletes webhooks behind the admin token', async () => {
    await request(t.app).get(`${BASE}/admin/webhooks`).expect(401);
    const before = Date.now();
    const created = await addWebhook({ url: 'http://127.0.0.1:9/x', types: ['asset.created'] });
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown,
      url: 'http://127.0.0.1:9/x',
      types: ['asset.created'],
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) as unknown,
      created_at: expect.any(Number) as unknown,
    });
    expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(32);
    expect(created.created_at).toBeGreaterThanOrEqual(before);
    const list = await request(t.app).get(`${BASE}/admin/webhooks`).set(auth).expect(200);
    expect((list.body as { data: object[] }).data).toContainEqual({
      id: created.id,
      url: created.url,
      types: created.types,
      created_at: created.created_at,
    });
    await request(t.app).delete(`${BASE}/admin/webhooks/${created.id}`).set(auth).expect(200);
    await request(t.app).delete(`${BASE}/admin/webhooks/${created.id}`).set(auth).expect(404);
    await request(t.app)
      .get(`${BASE}/admin/webhooks/${created.id}/deliveries`)
      .set(auth)
      .expect(404);
  });

  it('refuses a bad URL, an unknown type, and private targets unless webhook_allow_private', async () => {
    for (const [body, error] of [
      [{ url: 'not a url' }, 'invalid url: expected an absolute http or https URL'],
      [{ url: 'ftp://example.com/' }, 'invalid url: expected an http or https URL'],
      [{ url: 'http://127.0.0.1:9/', types: ['asset.nope'] }, 'invalid types:'],
      [
        { url: 'http://127.0.0.1:9/', types: [] },
        'invalid types: expected at least one event type',
      ],
    ] as const) {
      const res = await request(t.app)
        .post(`${BASE}/admin/webhooks`)
        .set(auth)
        .send(body)
        .expect(400);
      expect((res.body as { error: string }).error).toContain(error);
    }
    const strict = variantApp(t, { config: { webhook_allow_private: false } });
    for (const url of [
      'http://127.0.0.1:8080/',
      'http://localhost/',
      'http://[::1]/',
      'http://10.1.2.3/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:127.0.0.1]/',
    ]) {
      const res = await request(strict.app)
        .post(`${BASE}/admin/webhooks`)
        .set(auth)
        .send({ url })
        .expect(400);
      expect((res.body as { error: string }).error).toMatch(
        /^invalid url: its host .* resolves to a private, loopback or link-local address/,
      );
    }
  });
});

describe('webhook deliveries', () => {
  // Each test starts with no webhook and an answering receiver, even after one failed.
  afterEach(async () => {
    receiver.answer = () => 200;
    const list = await request(t.app).get(`${BASE}/admin/webhooks`).set(auth).expect(200);
    for (const hook of (list.body as { data: { id: string }[] }).data) {
      await request(t.app).delete(`${BASE}/admin/webhooks/${hook.id}`).set(auth).expect(200);
    }
  });

  it('delivers each event signed per Standard Webhooks (verified by the library), only its types', async () => {
    const all = await addWebhook({ url: receiver.url });
    const onlyTrash = await addWebhook({ url: `${receiver.url}?trash`, types: ['asset.trashed'] });
    receiver.secret = all.secret;
    const a = await ingestData(t.app, { data: 'one' });
    await request(t.app).delete(`${BASE}/asset/${a.hash}`).expect(200);
    await receiver.until(() => receiver.delivered.length >= 3);
    const feed = (await changesPage(t.app)).events.filter((e) => e.hash === a.hash);
    const toAll = receiver.delivered.filter((r) => r.event.hash === a.hash && r.verified);
    expect(toAll.map((r) => r.event)).toEqual(feed);
    expect(toAll.map((r) => r.id)).toEqual(feed.map((e) => e.id));
    // Signed with the other webhook's secret: the library refuses it with this one.
    const trashOnly = receiver.delivered.filter((r) => !r.verified);
    expect(trashOnly.map((r) => r.event.type)).toEqual(['asset.trashed']);
    const log = await settledDeliveries(all.id, feed.length);
    expect(log.map((d) => [d.event_id, d.status, d.error])).toEqual(
      feed.map((e) => [e.id, 200, null]).reverse(),
    );
    await request(t.app).delete(`${BASE}/admin/webhooks/${all.id}`).set(auth).expect(200);
    await request(t.app).delete(`${BASE}/admin/webhooks/${onlyTrash.id}`).set(auth).expect(200);
  });

  it('retries a failing receiver with backoff until it answers, one asset’s events in order', async () => {
    receiver.received.length = 0;
    const hook = await addWebhook({ url: receiver.url });
    receiver.secret = hook.secret;
    // Every event fails twice, then is taken.
    receiver.answer = (_event, seen) => (seen <= 2 ? 503 : 200);
    const failuresBefore = await metric('asset_store_webhook_failures_total');
    const a = await ingestData(t.app, { data: 'retried' });
    await request(t.app)
      .patch(`${BASE}/asset/${a.hash}`)
      .send({ tags: ['x'] })
      .expect(200);
    await request(t.app).delete(`${BASE}/asset/${a.hash}`).expect(200);
    await receiver.until(() => receiver.delivered.length >= 3);
    // The last outcome is recorded just after the receiver answered.
    for (let i = 0; i < 50 && (await metric('asset_store_webhook_retry_backlog')) > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await metric('asset_store_webhook_retry_backlog')).toBe(0);
    expect(receiver.delivered.map((r) => r.event.type)).toEqual([
      'asset.created',
      'asset.updated',
      'asset.trashed',
    ]);
    expect(receiver.received.every((r) => r.verified)).toBe(true);
    // Never a later event of the asset before an earlier one was taken.
    const order = receiver.received.map((r) => Number(r.id));
    for (let i = 1; i < order.length; i++) expect(order[i]).toBeGreaterThanOrEqual(order[i - 1]!);
    expect(await metric('asset_store_webhook_failures_total')).toBe(failuresBefore + 6);
    const log = await settledDeliveries(hook.id, 9);
    expect(log.filter((d) => d.status === 503)).toHaveLength(6);
    expect(log.filter((d) => d.status === 200)).toHaveLength(3);
    receiver.answer = () => 200;
    await request(t.app).delete(`${BASE}/admin/webhooks/${hook.id}`).set(auth).expect(200);
  });

  it('gives a delivery up after webhook_retry_hours, and checks the target again at delivery', async () => {
    const app = variantApp(t, {
      config: { webhook_retry_hours: 0.0003, webhook_allow_private: false },
    });
    // Made while private targets were allowed: refused now, at delivery.
    const hook = await addWebhook({ url: receiver.url });
    receiver.received.length = 0;
    const givenUpBefore = await metric('asset_store_webhook_deliveries_given_up_total');
    await t.runtime.services.webhookDispatcher.stop();
    app.runtime.services.webhookDispatcher.start();
    try {
      await ingestData(t.app, { data: 'refused' });
      const deadline = Date.now() + 15_000;
      let log = await deliveries(hook.id);
      while (!log.some((d) => d.error?.endsWith('given up')) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        log = await deliveries(hook.id);
      }
      expect(log[0]!.error).toMatch(/^refused: 127\.0\.0\.1 is a private address; given up$/);
      expect(log.every((d) => d.status === null)).toBe(true);
      expect(receiver.received).toEqual([]);
      const given = (await request(app.app).get('/metrics').expect(200)).text;
      expect(given.split('\n').filter((l) => l.startsWith('asset_store_webhook'))).toContain(
        'asset_store_webhook_deliveries_given_up_total 1',
      );
      expect(givenUpBefore).toBe(0);
    } finally {
      await app.runtime.services.webhookDispatcher.stop();
    }
  });
});
