// Repeats issue 25's outside measurements against both services as an operator runs them:
// a 10 s database outage under load, 100 trickling bodies, and more connections from one
// address than the cap. Prints one JSON line per figure. Needs TEST_DATABASE_URL.
// Run: pnpm measure:faults
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, TcpProxy, type TestDatabase } from '@svc/testing';
import {
  freePort,
  spawnService,
  stopIfRunning,
  waitUntil,
  type ServiceProcess,
} from '@svc/testing/service-process';

const ROOT = path.resolve(import.meta.dirname, '..');
const OUTAGE_MS = 10_000;
const WORKERS = 8;
const TRICKLERS = 100;
const TRICKLE_GAP_MS = 3_000;
const CAP_PROBE = 300;

interface Target {
  name: string;
  port: number;
  health: string;
  /** Requests that need the database, answered 404 or 200 while it is up. */
  probes: { method: string; path: string; body?: string }[];
  /** A request head whose body the probe trickles. */
  trickleHead: string;
  service: ServiceProcess;
  proxy: TcpProxy;
  db: TestDatabase;
  dir: string;
}

async function start(name: 'asset-store' | 'handle-relay'): Promise<Target> {
  const db = await createTestDatabase(`faults_${name}`);
  if (db.target.kind !== 'postgres') throw new Error('TEST_DATABASE_URL must name a server');
  const dbUrl = new URL(db.target.url);
  const proxy = await TcpProxy.start(dbUrl.hostname, Number(dbUrl.port || 5432));
  const url = proxy.rewrite(db.target.url);
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `faults-${name}-`));
  const config = path.join(dir, 'config.yaml');
  const relay = name === 'handle-relay';
  fs.writeFileSync(
    config,
    relay
      ? `bind: 127.0.0.1:${port}\ndb: ${url}\nlog_level: silent\n` +
          `vapid_key_path: ${dir}/vapid.json\nrate_limit_per_minute: 0\n`
      : `listen: 127.0.0.1:${port}\ndatabase_url: ${url}\nstorage_root: ${dir}/assets\n` +
          `log_level: silent\nverify_interval_hours: 0\n`,
  );
  const service = spawnService(path.join(ROOT, 'services', name, 'src', 'main.ts'), [config]);
  const health = relay ? '/v1/healthz' : '/healthz';
  await waitUntil(async () => (await fetch(`http://127.0.0.1:${port}${health}`)).ok);
  const api = '/api/v1/can/0';
  return {
    name,
    port,
    health,
    probes: relay
      ? [
          { method: 'GET', path: '/v1/u/nobody' },
          { method: 'POST', path: '/v1/messages', body: '{"to":"nobody","envelope":{}}' },
        ]
      : [
          { method: 'GET', path: `${api}/list?limit=1` },
          { method: 'POST', path: `${api}/ingest/data`, body: '{"data":{"n":1}}' },
        ],
    trickleHead:
      `POST ${relay ? '/v1/messages' : `${api}/ingest/data`} HTTP/1.1\r\nHost: x\r\n` +
      'Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n',
    service,
    proxy,
    db,
    dir,
  };
}

async function stop(t: Target): Promise<void> {
  await stopIfRunning(t.service, 'SIGTERM');
  await t.proxy.close();
  await t.db.drop();
  fs.rmSync(t.dir, { recursive: true, force: true });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const report = (line: Record<string, unknown>) => console.log(JSON.stringify(line));

/** Load on the database-backed routes through a cut of OUTAGE_MS; statuses per phase. */
async function outage(t: Target): Promise<void> {
  let phase: 'before' | 'outage' | 'after' = 'before';
  let running = true;
  const counts: Record<string, Record<string, number>> = { before: {}, outage: {}, after: {} };
  const health: Record<string, number> = {};
  const count = (bucket: Record<string, number>, key: string) =>
    (bucket[key] = (bucket[key] ?? 0) + 1);
  const worker = async (n: number) => {
    for (let i = n; running; i++) {
      const probe = t.probes[i % t.probes.length]!;
      const res = await fetch(`http://127.0.0.1:${t.port}${probe.path}`, {
        method: probe.method,
        body: probe.body,
        headers: probe.body ? { 'Content-Type': 'application/json' } : {},
        signal: AbortSignal.timeout(30_000),
      }).catch(() => undefined);
      await res?.arrayBuffer().catch(() => undefined);
      const key = res
        ? `${res.status}${res.headers.get('retry-after') ? '+retry-after' : ''}`
        : 'none';
      count(counts[phase]!, key);
    }
  };
  const workers = Array.from({ length: WORKERS }, (_, n) => worker(n));
  await sleep(2_000);
  phase = 'outage';
  await t.proxy.cut();
  for (const until = Date.now() + OUTAGE_MS; Date.now() < until; await sleep(500)) {
    const res = await fetch(`http://127.0.0.1:${t.port}${t.health}`).catch(() => undefined);
    count(health, String(res?.status ?? 'none'));
  }
  await t.proxy.restore();
  phase = 'after';
  await sleep(3_000);
  running = false;
  await Promise.all(workers);
  report({
    service: t.name,
    figure: 'database outage',
    outage_s: OUTAGE_MS / 1000,
    counts,
    health_during: health,
  });
}

/** Bodies trickled at one byte every TRICKLE_GAP_MS: how many the service closed, and when. */
async function trickle(t: Target): Promise<void> {
  const began = Date.now();
  const closedAt: number[] = [];
  const sockets = await Promise.all(
    Array.from({ length: TRICKLERS }, async () => {
      const socket = net.connect(t.port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.on('error', () => undefined);
      socket.once('close', () => closedAt.push(Date.now() - began));
      socket.write(t.trickleHead);
      return socket;
    }),
  );
  const drip = setInterval(() => {
    for (const s of sockets) if (!s.destroyed) s.write('{');
  }, TRICKLE_GAP_MS);
  const marks: Record<string, number> = {};
  for (const at of [5, 15, 30]) {
    await sleep(at * 1000 - (Date.now() - began));
    marks[`closed_by_${at}s`] = closedAt.length;
  }
  clearInterval(drip);
  for (const s of sockets) s.destroy();
  report({ service: t.name, figure: 'trickling bodies', connections: TRICKLERS, ...marks });
}

/** CAP_PROBE idle connections from one address: how many stay open. */
async function connectionCap(t: Target): Promise<void> {
  const sockets = await Promise.all(
    Array.from({ length: CAP_PROBE }, async () => {
      const socket = net.connect(t.port, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.resume(); // so a close by the server is seen
      await new Promise((resolve) => socket.once('connect', resolve));
      return socket;
    }),
  );
  await sleep(2_000);
  const open = sockets.filter((s) => !s.destroyed && !s.readableEnded).length;
  for (const s of sockets) s.destroy();
  report({
    service: t.name,
    figure: 'connections from one address',
    opened: CAP_PROBE,
    open_after_2s: open,
  });
}

for (const name of ['asset-store', 'handle-relay'] as const) {
  const t = await start(name);
  try {
    await outage(t);
    await trickle(t);
    await connectionCap(t);
  } finally {
    await stop(t);
  }
}
