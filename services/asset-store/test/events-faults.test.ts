import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { TcpProxy, testDatabaseMode } from '@svc/testing';
import { freePort, spawnService, waitUntil } from '@svc/testing/service-process';
import { useServiceSandbox } from '@svc/testing/service-sandbox';
import type { ChangeEvent } from '../src/changes/change.service.js';
import { WebhookReceiver } from './webhook-receiver.js';

// Issue 45's fault tests: the service as an operator runs it (its own process, through
// tsx), a real receiver verifying every delivery with the `standardwebhooks` library.
//
// How long the receiver stays down: the issue says 2 minutes; CI takes 10 s (the retries'
// backoff from 0.2 s has doubled five times by then, so the same code paths run). The
// full length: `EVENTS_RECEIVER_DOWN_S=120 pnpm test services/asset-store/test/events-faults.test.ts`.
const RECEIVER_DOWN_S = Number(process.env.EVENTS_RECEIVER_DOWN_S ?? 10);
/** How long the database stays away (the issue: 10 s). */
const DATABASE_DOWN_S = Number(process.env.EVENTS_DATABASE_DOWN_S ?? 10);

const ENTRY = path.resolve(import.meta.dirname, '..', 'src', 'main.ts');
const ADMIN = 'faults-admin';
const API = '/api/v1/can/0';
// Skipped on the embedded database: a restarted service and a proxy cut need a server.
const onServer = testDatabaseMode() === 'postgres' ? it : it.skip;

const sandbox = useServiceSandbox('asset-store-events-');
let receiver: WebhookReceiver;
beforeEach(async () => {
  receiver = await WebhookReceiver.start();
});
afterEach(() => receiver.close());

/** A service's configuration file: a fresh database (or the embedded one), its port. */
async function configure(databaseUrl?: string): Promise<{ config: string; base: string }> {
  const url = databaseUrl ?? (await sandbox.serverDatabaseUrl('asset_events'));
  const port = await freePort();
  const config = sandbox.configFile(
    `storage_root: ./assets\nlisten: 127.0.0.1:${port}\n` +
      (url === undefined ? '' : `database_url: ${url}\n`) +
      `admin_token: ${ADMIN}\nwebhook_allow_private: true\n` +
      'webhook_retry_first_seconds: 0.2\nlog_level: warn\n',
  );
  return { config, base: `http://127.0.0.1:${port}` };
}

async function start(config: string, base: string): Promise<void> {
  sandbox.running = spawnService(ENTRY, [config]);
  await waitUntil(async () => (await fetch(`${base}/healthz`)).status === 200);
}

async function call(base: string, method: string, route: string, body?: unknown) {
  const res = await fetch(`${base}${API}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { data?: unknown; error?: string } };
}

async function ok<T>(base: string, method: string, route: string, body?: unknown): Promise<T> {
  const res = await call(base, method, route, body);
  if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${res.body.error}`);
  return res.body.data as T;
}

/** Subscribes the receiver (every type) and gives it the secret. */
async function subscribe(base: string): Promise<string> {
  const hook = await ok<{ id: string; secret: string }>(base, 'POST', '/admin/webhooks', {
    url: receiver.url,
  });
  receiver.secret = hook.secret;
  return hook.id;
}

const ingest = (base: string, data: unknown) =>
  ok<{ hash: string }>(base, 'POST', '/ingest/data', { data });

/** The whole feed. */
async function feed(base: string): Promise<ChangeEvent[]> {
  const all: ChangeEvent[] = [];
  let after = '0';
  for (;;) {
    const page = await ok<{ events: ChangeEvent[]; next: string }>(
      base,
      'GET',
      `/changes?after=${after}&limit=1000`,
    );
    all.push(...page.events);
    if (page.events.length < 1000) return all;
    after = page.next;
  }
}

/**
 * Waits until every event of the feed was delivered (2xx), then checks the deliveries:
 * each signature accepted by the library, each body the feed's event, and one asset's
 * events in feed order (a repeat, at least once, only right after itself).
 */
async function expectAllDelivered(base: string, events: ChangeEvent[], ms: number) {
  const ids = new Set(events.map((e) => e.id));
  await receiver.until(() => {
    const delivered = new Set(receiver.delivered.map((r) => r.id));
    return [...ids].every((id) => delivered.has(id));
  }, ms);
  expect(receiver.received.filter((r) => !r.verified)).toEqual([]);
  const byId = new Map(events.map((e) => [e.id, e]));
  for (const r of receiver.delivered) expect(r.event).toEqual(byId.get(r.id));
  const hashes = new Set(events.map((e) => e.hash));
  for (const hash of hashes) {
    const arrived = receiver.delivered.filter((r) => r.event.hash === hash).map((r) => r.id);
    const collapsed = arrived.filter((id, i) => id !== arrived[i - 1]);
    expect({ hash, ids: collapsed }).toEqual({
      hash,
      ids: events.filter((e) => e.hash === hash).map((e) => e.id),
    });
  }
  // The feed itself: numbered 1..n, no hole, no repeat.
  expect((await feed(base)).map((e) => Number(e.id))).toEqual(events.map((_, i) => i + 1));
}

describe('webhook deliveries under faults', () => {
  it('an event committed but not yet delivered when the service is killed (SIGKILL) is delivered after the restart', async () => {
    const { config, base } = await configure();
    await start(config, base);
    await subscribe(base);
    // The receiver takes the requests and never answers: deliveries are in flight, leased.
    receiver.hold = true;
    const stored = [];
    for (let i = 0; i < 10; i++) stored.push(await ingest(base, { killed: i }));
    for (const { hash } of stored.slice(0, 5)) await ok(base, 'DELETE', `/asset/${hash}`);
    await receiver.until(() => receiver.held >= 10, 15_000);
    const events = await feed(base);
    expect(events).toHaveLength(15);
    // Committed, sent, not acknowledged: the process dies.
    sandbox.running!.child.kill('SIGKILL');
    await sandbox.running!.exited;
    expect(receiver.received).toEqual([]);

    await receiver.down();
    receiver.hold = false;
    await receiver.up();
    await start(config, base);
    await expectAllDelivered(base, events, 30_000);
  }, 60_000);

  it(
    `a receiver down for ${RECEIVER_DOWN_S} s gets every event after, one asset’s in order`,
    async () => {
      const { config, base } = await configure();
      await start(config, base);
      await subscribe(base);
      await receiver.down();
      // Ten assets, each created, edited, trashed and restored, spread over the outage.
      const ops = 40;
      const pause = (RECEIVER_DOWN_S * 1000) / ops;
      const hashes: string[] = [];
      const began = Date.now();
      for (let i = 0; i < ops; i++) {
        const k = i % 10;
        const step = Math.floor(i / 10);
        if (step === 0) hashes.push((await ingest(base, { outage: k })).hash);
        else if (step === 1) await ok(base, 'PATCH', `/asset/${hashes[k]}`, { tags: ['edited'] });
        else if (step === 2) await ok(base, 'DELETE', `/asset/${hashes[k]}`);
        else await ok(base, 'POST', `/asset/${hashes[k]}/restore`);
        await sleep(Math.max(0, began + (i + 1) * pause - Date.now()));
      }
      expect(receiver.received).toEqual([]);
      await receiver.up();
      const events = await feed(base);
      expect(events.map((e) => e.type).sort()).toEqual(
        [
          ...Array<string>(10).fill('asset.created'),
          ...Array<string>(10).fill('asset.updated'),
          ...Array<string>(10).fill('asset.trashed'),
          ...Array<string>(10).fill('asset.restored'),
        ].sort(),
      );
      // The backoff has grown through the outage: the next try may be that long away.
      await expectAllDelivered(base, events, RECEIVER_DOWN_S * 1000 + 30_000);
    },
    2 * RECEIVER_DOWN_S * 1000 + 60_000,
  );

  onServer(
    `the database away for ${DATABASE_DOWN_S} s: ingests meanwhile get 503, no event is lost`,
    async () => {
      const direct = (await sandbox.serverDatabaseUrl('asset_events_outage'))!;
      const target = new URL(direct);
      const proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
      try {
        const { config, base } = await configure(proxy.rewrite(direct));
        await start(config, base);
        await subscribe(base);
        const before = [];
        for (let i = 0; i < 5; i++) before.push((await ingest(base, { before: i })).hash);
        // Cut at once: those events' deliveries are still being made, or owed.
        await proxy.cut();
        const answers: { status: number; error: string | undefined }[] = [];
        const until = Date.now() + DATABASE_DOWN_S * 1000;
        while (Date.now() < until) {
          const res = await call(base, 'POST', '/ingest/data', {
            data: { during: answers.length },
          });
          answers.push({ status: res.status, error: res.body.error });
          await sleep(250);
        }
        await proxy.restore();
        expect(answers.length).toBeGreaterThan(10);
        expect(answers).toEqual(
          answers.map(() => ({
            status: 503,
            error: 'the database is unavailable: try again shortly',
          })),
        );
        await waitUntil(async () => (await fetch(`${base}/healthz`)).status === 200, 20_000);
        const after = [];
        for (let i = 0; i < 5; i++) after.push((await ingest(base, { after: i })).hash);
        const events = await feed(base);
        expect(events.map((e) => [e.type, e.hash])).toEqual(
          [...before, ...after].map((hash) => ['asset.created', hash]),
        );
        await expectAllDelivered(base, events, 30_000);
        // Nothing of the refused ingests was kept.
        const list = await ok<{ pagination: { total: number } }>(base, 'GET', '/list?limit=1');
        expect(list.pagination.total).toBe(10);
      } finally {
        await proxy.close();
      }
    },
    DATABASE_DOWN_S * 1000 + 60_000,
  );
});
