import { TcpProxy } from '@svc/testing';
import request from 'supertest';
import type { ChangeEvent } from '../src/changes/change.service.js';
import { ingestData, ingestFile, listen } from './asset-helpers.js';
import { changesPage } from './change-helpers.js';
import { jsonLines, runCli, startCli, type RunningCli } from './cli-runner.js';
import { createTestApp, type TestApp } from './test-app.js';
import { WebhookReceiver } from './webhook-receiver.js';

const ADMIN = 'cli-events-admin';
const BASE = '/api/v1/can/0';
const auth = { Authorization: `Bearer ${ADMIN}` };
// Kolkata keeps +05:30 all year: the CLI's local time is told apart from UTC and the test's zone.
const ZONE = { TZ: 'Asia/Kolkata' };
const OFFSET_MS = 330 * 60_000;

/** Epoch ms as a wall clock at +05:30, the way the CLI prints local time there. */
function kolkata(ms: number): string {
  return new Date(ms + OFFSET_MS).toISOString().slice(0, 19).replace('T', ' ');
}

/** Resolves once `test` holds, polling every 50 ms; fails after `ms`. */
async function until(test: () => boolean, what: () => string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`not met in ${ms} ms: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const lineCount = (cli: RunningCli) => cli.out().split('\n').length - 1;

describe('asset-store watch and webhooks', () => {
  let t: TestApp;
  let server: Awaited<ReturnType<typeof listen>>;
  let url: string;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    t = await createTestApp('cli_events', {
      admin_token: ADMIN,
      webhook_allow_private: true,
      webhook_retry_first_seconds: 0.2,
    });
    t.runtime.services.webhookDispatcher.start();
    server = await listen(t.app);
    url = `http://127.0.0.1:${server.port}`;
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await receiver.close();
    await server.stop();
    await t.close();
  });

  /** The feed's events after `after`, as the API shows them. */
  async function eventsAfter(after: string): Promise<ChangeEvent[]> {
    return (await changesPage(t.app, { after })).events;
  }

  it('watch prints one line per change in local time from now, and Ctrl-C ends it with 0', async () => {
    const start = (await changesPage(t.app, { after: '0', limit: '1000' })).next;
    const cli = startCli(['watch'], { env: { ASSET_STORE_URL: url, ...ZONE } });
    await until(
      () => cli.err().includes('watching'),
      () => cli.err(),
    );
    const a = await ingestFile(t.app, 'watched', 'a.txt', {
      human_file_name: 'a.txt',
      human_readable_path: 'photos/2026',
    });
    await request(t.app).delete(`${BASE}/asset/${a.hash}`).expect(200);
    const b = await ingestData(t.app, { data: { n: 1 } });
    await until(
      () => lineCount(cli) >= 3,
      () => cli.out(),
    );
    cli.child.kill('SIGINT');
    const run = await cli.done;
    const events = await eventsAfter(start);
    expect(events.map((e) => [e.type, e.hash])).toEqual([
      ['asset.created', a.hash],
      ['asset.trashed', a.hash],
      ['asset.created', b.hash],
    ]);
    const line = (e: ChangeEvent, type: string, name: string) =>
      `${kolkata(e.at)}  ${e.id.padStart(8)}  ${type}  ${e.hash.slice(0, 12)}${name}\n`;
    expect(run).toEqual({
      code: 0,
      out:
        line(events[0]!, 'asset.created  ', '  photos/2026/a.txt') +
        line(events[1]!, 'asset.trashed  ', '  photos/2026/a.txt') +
        line(events[2]!, 'asset.created  ', ''),
      err: `asset-store: watching the changes after ${start} (Ctrl-C to stop)\n`,
    });
  });

  it('watch --json --after prints the events after the cursor, then live ones, and resumes after a dropped connection', async () => {
    const start = (await changesPage(t.app, { after: '0', limit: '1000' })).next;
    const first = await ingestData(t.app, { data: 'before the watch' });
    const proxy = await TcpProxy.start('127.0.0.1', server.port);
    try {
      const cli = startCli(['watch', '--json', '--after', start], {
        env: { ASSET_STORE_URL: `http://127.0.0.1:${proxy.port}` },
      });
      await until(
        () => lineCount(cli) >= 1,
        () => cli.out() + cli.err(),
      );
      const seen = (await eventsAfter(start))[0]!;
      // The connection drops; two changes commit while the CLI cannot reach the store.
      await proxy.cut();
      const during = [
        await ingestData(t.app, { data: 'while cut 1' }),
        await ingestData(t.app, { data: 'while cut 2' }),
      ];
      await until(
        () => cli.err().includes('connection lost'),
        () => cli.err(),
      );
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await proxy.restore();
      await until(
        () => lineCount(cli) >= 3,
        () => cli.out() + cli.err(),
      );
      const after = await ingestData(t.app, { data: 'after the drop' });
      await until(
        () => lineCount(cli) >= 4,
        () => cli.out() + cli.err(),
      );
      cli.child.kill('SIGINT');
      const run = await cli.done;
      const events = await eventsAfter(start);
      expect(events.map((e) => e.hash)).toEqual([
        first.hash,
        ...during.map((d) => d.hash),
        after.hash,
      ]);
      // Each event once, in feed order, exactly as /changes has it.
      expect(run.code).toBe(0);
      expect(jsonLines(run.out)).toEqual(events);
      expect(run.err).toBe(
        `asset-store: watching the changes after ${start} (Ctrl-C to stop)\n` +
          `asset-store: connection lost; reconnecting after ${seen.id}\n` +
          `asset-store: reconnected; going on after ${seen.id}\n`,
      );
    } finally {
      await proxy.close();
    }
  }, 30_000);

  it('watch: a store not reached exits 1; a cursor the store refuses exits 1 with its message', async () => {
    const refused = await runCli(['watch', '--url', 'http://127.0.0.1:9']);
    expect(refused.code).toBe(1);
    expect(refused.out).toBe('');
    expect(refused.err).toMatch(
      /^asset-store: cannot reach the store at http:\/\/127\.0\.0\.1:9 \(.*\)\n$/,
    );
    const bad = await runCli(['watch', '--after', 'x'], { env: { ASSET_STORE_URL: url } });
    expect(bad).toEqual({
      code: 1,
      out: '',
      err: `asset-store: ${url} answered 400: invalid Last-Event-ID: expected a cursor\n`,
    });
  });

  it('webhooks add, ls, deliveries and rm: tables, or JSON lines with --json (admin token)', async () => {
    const env = { ASSET_STORE_URL: url, ASSET_STORE_TOKEN: ADMIN, ...ZONE };
    const added = await runCli(
      ['webhooks', 'add', receiver.url, '--events', 'asset.created,asset.trashed'],
      { env },
    );
    const [hook] = (
      (await request(t.app).get(`${BASE}/admin/webhooks`).set(auth).expect(200)).body as {
        data: { id: string; url: string; types: string[]; created_at: number }[];
      }
    ).data;
    const secret = /^SECRET {2}(whsec_[A-Za-z0-9+/=]{44})$/m.exec(added.out)?.[1];
    expect(secret).toBeDefined();
    receiver.secret = secret!;
    const created = kolkata(hook!.created_at);
    const pad = (text: string, n: number) => text.padEnd(n);
    expect(added).toEqual({
      code: 0,
      out:
        `${pad('ID', 36)}  ${pad('CREATED', 19)}  ${pad('TYPES', 27)}  URL\n` +
        `${hook!.id}  ${created}  asset.created,asset.trashed  ${receiver.url}\n` +
        `SECRET  ${secret}\n`,
      err: 'asset-store: keep the secret: the store shows it only this once\n',
    });
    expect(hook).toEqual({
      id: expect.any(String) as unknown,
      url: receiver.url,
      types: ['asset.created', 'asset.trashed'],
      created_at: expect.any(Number) as unknown,
    });

    const listed = await runCli(['webhooks', 'ls', '--json'], { env });
    expect(listed).toEqual({ code: 0, out: `${JSON.stringify(hook)}\n`, err: '' });

    const stored = await ingestData(t.app, { data: 'for the hook' });
    await receiver.until(() => receiver.delivered.some((r) => r.event.hash === stored.hash));
    expect(receiver.delivered.every((r) => r.verified)).toBe(true);
    type Attempt = { event_id: string; status: number; at: number; duration_ms: number };
    let attempts: Attempt[] = [];
    // The attempt is logged once the receiver's answer is in: shortly after it got the event.
    for (let i = 0; i < 100 && attempts.length === 0; i++) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      const res = await request(t.app)
        .get(`${BASE}/admin/webhooks/${hook!.id}/deliveries`)
        .set(auth)
        .expect(200);
      attempts = (res.body as { data: Attempt[] }).data;
    }
    expect(attempts).toHaveLength(1);
    const shown = await runCli(['webhooks', 'deliveries', hook!.id], { env });
    const a = attempts[0]!;
    const took = `${a.duration_ms} ms`;
    expect(shown).toEqual({
      code: 0,
      out:
        `${pad('AT', 19)}  ${pad('EVENT', Math.max(5, a.event_id.length))}  RESULT  TOOK\n` +
        `${kolkata(a.at)}  ${pad(a.event_id, 5)}  200     ${took}\n`,
      err: '',
    });
    const shownJson = await runCli(['webhooks', 'deliveries', hook!.id, '--json'], { env });
    expect(shownJson).toEqual({ code: 0, out: `${JSON.stringify(a)}\n`, err: '' });

    const removed = await runCli(['webhooks', 'rm', hook!.id], { env });
    expect(removed).toEqual({ code: 0, out: `deleted ${hook!.id}\n`, err: '' });
    const empty = await runCli(['webhooks', 'ls'], { env });
    expect(empty).toEqual({ code: 0, out: 'ID  CREATED  TYPES  URL\n', err: '' });
    const gone = await runCli(['webhooks', 'rm', hook!.id], { env });
    expect(gone).toEqual({
      code: 1,
      out: '',
      err: `asset-store: ${url} answered 404: webhook not found\n`,
    });
  });

  it('webhooks: a bad type is a usage error (2); the store’s refusals exit 1 with its message', async () => {
    const env = { ASSET_STORE_URL: url, ASSET_STORE_TOKEN: ADMIN };
    const badType = await runCli(['webhooks', 'add', receiver.url, '--events', 'asset.nope'], {
      env,
    });
    expect(badType).toEqual({
      code: 2,
      out: '',
      err:
        'asset-store: --events: unknown type asset.nope (one of asset.created, asset.updated, ' +
        'asset.trashed, asset.restored, asset.corrupted, asset.repaired, asset.purged)\n',
    });
    const badUrl = await runCli(['webhooks', 'add', 'ftp://example.com/x'], { env });
    expect(badUrl.code).toBe(1);
    expect(badUrl.out).toBe('');
    expect(badUrl.err).toMatch(/^asset-store: http:\/\/127\.0\.0\.1:\d+ answered 400: .*url.*\n$/);
    const noToken = await runCli(['webhooks', 'ls'], { env: { ASSET_STORE_URL: url } });
    expect(noToken.code).toBe(1);
    expect(noToken.err).toMatch(/^asset-store: http:\/\/127\.0\.0\.1:\d+ answered 401: /);
  });
});
