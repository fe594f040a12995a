import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { authLines, signedAuthValue } from '../src/client/index.js';
import { registerHandle, type RegisteredHandle } from './handle-factories.js';
import { browserKeys, startPushEndpoint, type PushEndpoint } from './push-endpoint.js';
import { openSse, type SseClient } from './sse-client.js';
import { createTestApp, SETUP_TIMEOUT_MS, type TestApp } from './test-app.js';
import { waitFor } from './wait-for.js';

let t: TestApp;
let server: Server;
let baseUrl: string;
let endpoint: PushEndpoint;
const clients: SseClient[] = [];
beforeAll(async () => {
  t = await createTestApp('metrics', { push_allow_private_endpoints: true });
  server = await new Promise<Server>((resolve) => {
    const s = http.createServer(t.app).listen(0, '127.0.0.1', () => resolve(s));
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  endpoint = await startPushEndpoint();
}, SETUP_TIMEOUT_MS);
afterEach(() => {
  for (const c of clients.splice(0)) c.close();
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await endpoint.close();
  await t.close();
}, SETUP_TIMEOUT_MS);

/** The value of one series in `/metrics` (0 when absent). */
async function series(name: string, labels = ''): Promise<number> {
  const res = await request(t.app).get('/metrics').expect(200);
  const line = res.text
    .split('\n')
    .find((l) => l.startsWith(labels ? `${name}{${labels}} ` : `${name} `));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

async function send(to: string, envelope: unknown): Promise<number> {
  const res = await request(t.app).post('/v1/messages').send({ to, envelope }).expect(201);
  return (res.body as { seq: number }).seq;
}

async function openStream(owner: RegisteredHandle, extra = ''): Promise<SseClient> {
  const auth = signedAuthValue(owner.keys.secretKey, authLines.stream(owner.handle));
  const path = `/v1/inbox/${owner.handle}/stream?auth=${encodeURIComponent(auth)}${extra}`;
  const client = await openSse(baseUrl, path);
  clients.push(client);
  return client;
}

async function subscribePush(owner: RegisteredHandle, url: string): Promise<void> {
  const k = browserKeys();
  const auth = signedAuthValue(
    owner.keys.secretKey,
    authLines.push('subscribe', owner.handle, url),
  );
  await request(t.app)
    .post(`/v1/push/subscribe/${owner.handle}`)
    .set('X-ID-Auth', auth)
    .send({ endpoint: url, p256dh: k.p256dh, auth: k.auth })
    .expect(204);
}

describe('/metrics domain series', () => {
  it('count registrations and messages stored', async () => {
    const registrations = await series('handle_relay_registrations_total');
    const alice = await registerHandle(t.app, t.config.server);
    expect(await series('handle_relay_registrations_total')).toBe(registrations + 1);
    const stored = await series('handle_relay_messages_stored_total');
    await send(alice.handle, 'one');
    await send(alice.handle, { two: 2 });
    expect(await series('handle_relay_messages_stored_total')).toBe(stored + 2);
    await request(t.app)
      .post('/v1/messages')
      .send({ to: 'nobody-here', envelope: 'x' })
      .expect(404);
    expect(await series('handle_relay_messages_stored_total')).toBe(stored + 2);
  });

  it('show the open streams, and count messages delivered live and replayed', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const first = await send(alice.handle, 'stored before');
    const live = await series('handle_relay_messages_delivered_total', 'via="live"');
    const replay = await series('handle_relay_messages_delivered_total', 'via="replay"');
    expect(await series('handle_relay_open_streams')).toBe(0);

    const client = await openStream(alice, `&since=${first - 1}`);
    expect(await series('handle_relay_open_streams')).toBe(1);
    await client.waitForMessages(1);
    expect(await series('handle_relay_messages_delivered_total', 'via="replay"')).toBe(replay + 1);
    await send(alice.handle, 'live one');
    await client.waitForMessages(2);
    expect(await series('handle_relay_messages_delivered_total', 'via="live"')).toBe(live + 1);

    client.close();
    const deadline = Date.now() + 5000;
    while ((await series('handle_relay_open_streams')) !== 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await series('handle_relay_open_streams')).toBe(0);
  });

  it('count push deliveries by outcome', async () => {
    const bob = await registerHandle(t.app, t.config.server);
    const ok = `${endpoint.url}/metrics/ok`;
    const refused = `${endpoint.url}/metrics/refused`;
    const gone = `${endpoint.url}/metrics/gone`;
    endpoint.statusFor.set('/metrics/refused', 500);
    endpoint.statusFor.set('/metrics/gone', 410);
    // Nothing listens on port 1: the delivery fails before any answer.
    const unreachable = 'http://127.0.0.1:1/metrics/unreachable';
    for (const url of [ok, refused, gone, unreachable]) await subscribePush(bob, url);
    const before = {
      delivered: await series('handle_relay_push_deliveries_total', 'outcome="delivered"'),
      refused: await series('handle_relay_push_deliveries_total', 'outcome="refused"'),
      gone: await series('handle_relay_push_deliveries_total', 'outcome="gone"'),
      failed: await series('handle_relay_push_deliveries_total', 'outcome="failed"'),
    };
    await send(bob.handle, 'ping');
    await t.relay.push.idle();
    await waitFor(() => endpoint.received.length >= 3, 'three push requests');
    expect(await series('handle_relay_push_deliveries_total', 'outcome="delivered"')).toBe(
      before.delivered + 1,
    );
    expect(await series('handle_relay_push_deliveries_total', 'outcome="refused"')).toBe(
      before.refused + 1,
    );
    expect(await series('handle_relay_push_deliveries_total', 'outcome="gone"')).toBe(
      before.gone + 1,
    );
    expect(await series('handle_relay_push_deliveries_total', 'outcome="failed"')).toBe(
      before.failed + 1,
    );
  });
});
