import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import pg from 'pg';
import { request } from 'undici';
import {
  cpuSeconds,
  cpuSecondsOf,
  envNumber,
  machineBusySeconds,
  median,
  multipartBody,
  printFigure,
  round3,
  settle,
  smallFiles,
  startService,
  stopProc,
  type Proc,
} from './bench-kit.js';

/**
 * `pnpm --filter asset-store bench:events` (needs TEST_DATABASE_URL): what the change feed and
 * webhooks cost and how fast they are, on the built service (a child process):
 *
 * 1. 4 KiB ingests with one webhook subscribed ÷ without, in one process: pairs of rounds
 *    (`EV_PAIRS`, alternating which goes first) after warm-up; a round with the webhook
 *    lasts until the receiver has every event, so the deliveries' work is inside it.
 * 2. Event → webhook latency at `EV_RATE` (200) data ingests per second, open loop, for
 *    `EV_SECONDS` (15): from the event's `at` to the receiver's arrival, one clock.
 * 3. `GET /changes?after=<random cursor>` (100 events a page) over 1,000,000 events made
 *    with one `INSERT … SELECT generate_series`: p50 / p95 of `EV_PAGES` (2,000) pages.
 */
const PAIRS = envNumber('EV_PAIRS', 5);
const COUNT = envNumber('EV_COUNT', 2000);
const WARM_UP = envNumber('EV_WARM_UP', 6000);
const RATE = envNumber('EV_RATE', 200);
const SECONDS = envNumber('EV_SECONDS', 15);
const EVENTS = envNumber('EV_EVENTS', 1_000_000);
const PAGES = envNumber('EV_PAGES', 2000);
const CLIENTS = envNumber('EV_CLIENTS', 4);
const CONNECTIONS = 8;
const ADMIN = 'bench-admin';
const API = '/api/v1/can/0';
const INGEST = `${API}/ingest`;

const say = (line: string) => process.stderr.write(`bench:events: ${line}\n`);

/** A receiver answering 204 at once, keeping when each event arrived. */
class Receiver {
  readonly arrivals = new Map<string, { at: number; eventAt: number }>();
  /** When the latest first arrival came (`performance.now()`). */
  lastArrival = 0;
  #server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const arrived = Date.now();
      const id = String(req.headers['webhook-id']);
      if (!this.arrivals.has(id)) {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { at: number };
        this.arrivals.set(id, { at: arrived, eventAt: event.at });
        this.lastArrival = performance.now();
      }
      res.writeHead(204).end();
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/hook`;
  }

  async until(count: number, ms = 120_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.arrivals.size < count) {
      if (Date.now() > deadline) throw new Error(`receiver: ${this.arrivals.size}/${count}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

async function api<T>(
  port: number,
  method: 'GET' | 'POST' | 'DELETE',
  route: string,
  body?: unknown,
) {
  const res = await request(`http://127.0.0.1:${port}${API}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${route}: ${res.statusCode} ${text}`);
  return (JSON.parse(text) as { data: T }).data;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

/** This process's CPU seconds (autocannon's client and the receiver). */
const benchCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** Part 1: ingest rounds with and without one webhook. */
async function ingestRatio(service: Proc, receiver: Receiver, hookUrl: string) {
  const { body, type } = multipartBody(Buffer.alloc(4096, 7));
  const pid = service.child.pid!;
  const round = async (withHook: boolean) => {
    await settle(pid);
    let hook: { id: string } | undefined;
    if (withHook) {
      hook = await api<{ id: string }>(service.port, 'POST', '/admin/webhooks', {
        url: hookUrl,
      });
      receiver.arrivals.clear();
    }
    const started = performance.now();
    const cpu = cpuSeconds(pid);
    const before = {
      machine: machineBusySeconds(),
      pg: cpuSecondsOf('postgres'),
      bench: benchCpu(),
    };
    const run = await smallFiles(service.port, INGEST, body, type, COUNT, CONNECTIONS);
    if (run.errors > 0) throw new Error(`${run.errors} ingests failed`);
    let rps = run.rps;
    let lagMs = 0;
    if (hook) {
      await receiver.until(COUNT);
      // The last delivery's own arrival: autocannon ends at its next one-second tick after
      // the last answer, so the time the wait returned would round this round up.
      const done = Math.max(run.lastAnswerAt, receiver.lastArrival);
      lagMs = done - run.lastAnswerAt;
      rps = COUNT / ((done - started) / 1000);
    }
    // The service's CPU per ingest, with the deliveries' work when there is a webhook.
    const cpuMs = ((cpuSeconds(pid) - cpu) * 1000) / COUNT;
    // Where the rest of the machine's CPU went: PostgreSQL, and this process (autocannon and
    // the receiver); the busy cores say whether the machine, not one process, was the ceiling.
    const seconds = (performance.now() - started) / 1000;
    const machine = machineBusySeconds() - before.machine;
    const split = {
      busyCores: machine / seconds,
      machineMs: (machine * 1000) / COUNT,
      pgMs: ((cpuSecondsOf('postgres') - before.pg) * 1000) / COUNT,
      benchMs: ((benchCpu() - before.bench) * 1000) / COUNT,
    };
    if (hook) await api(service.port, 'DELETE', `/admin/webhooks/${hook.id}`);
    return { rps, answeredRps: run.rps, p99: run.p99, lagMs, cpuMs, ...split };
  };
  say(`warming up (${WARM_UP} ingests, then a round with the webhook)`);
  await smallFiles(service.port, INGEST, body, type, WARM_UP, CONNECTIONS);
  await round(true);
  const pairs: {
    without: Awaited<ReturnType<typeof round>>;
    with: Awaited<ReturnType<typeof round>>;
  }[] = [];
  for (let i = 0; i < PAIRS; i++) {
    let without;
    let withHook;
    if (i % 2 === 0) {
      without = await round(false);
      withHook = await round(true);
    } else {
      withHook = await round(true);
      without = await round(false);
    }
    pairs.push({ without, with: withHook });
    say(`pair ${i + 1}/${PAIRS}: ${JSON.stringify(pairs.at(-1))}`);
  }
  const ratios = pairs.map((p) => p.with.rps / p.without.rps);
  printFigure({
    bench: 'events',
    figure: '4 KiB ingest req/s with one webhook (to the last delivery) ÷ without',
    ratio: round3(median(ratios)),
    target: 0.9,
    pairs: ratios.map(round3),
    with_rps: round3(median(pairs.map((p) => p.with.rps))),
    with_answered_rps: round3(median(pairs.map((p) => p.with.answeredRps))),
    without_rps: round3(median(pairs.map((p) => p.without.rps))),
    with_p99_ms: median(pairs.map((p) => p.with.p99)),
    without_p99_ms: median(pairs.map((p) => p.without.p99)),
    last_delivery_after_last_answer_ms: round3(median(pairs.map((p) => p.with.lagMs))),
    with_cpu_ms_per_ingest: round3(median(pairs.map((p) => p.with.cpuMs))),
    without_cpu_ms_per_ingest: round3(median(pairs.map((p) => p.without.cpuMs))),
    ...Object.fromEntries(
      (['busyCores', 'machineMs', 'pgMs', 'benchMs'] as const).flatMap((k) => [
        [`with_${k}`, round3(median(pairs.map((p) => p.with[k])))],
        [`without_${k}`, round3(median(pairs.map((p) => p.without[k])))],
      ]),
    ),
    load1: round3(os.loadavg()[0]!),
  });
}

/** Part 2: data ingests at RATE per second; the receiver times each event's arrival. */
async function deliveryLatency(service: Proc, receiver: Receiver, hookUrl: string) {
  await settle(service.child.pid!);
  const hook = await api<{ id: string }>(service.port, 'POST', '/admin/webhooks', { url: hookUrl });
  receiver.arrivals.clear();
  const total = Math.round(RATE * SECONDS);
  const interval = 1000 / RATE;
  const began = performance.now();
  const pending: Promise<unknown>[] = [];
  let late = 0;
  for (let i = 0; i < total; i++) {
    const due = began + i * interval;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    else if (wait < -interval) late++;
    pending.push(api(service.port, 'POST', '/ingest/data', { data: { n: i, t: Date.now() } }));
  }
  await Promise.all(pending);
  const sentFor = (performance.now() - began) / 1000;
  await receiver.until(total);
  const latencies = [...receiver.arrivals.values()].map((a) => a.at - a.eventAt);
  await api(service.port, 'DELETE', `/admin/webhooks/${hook.id}`);
  printFigure({
    bench: 'events',
    figure: `event → webhook ms at ${RATE} events/s`,
    events: total,
    sent_per_s: round3(total / sentFor),
    sends_late: late,
    p50_ms: quantile(latencies, 0.5),
    p99_ms: quantile(latencies, 0.99),
    max_ms: Math.max(...latencies),
    target_p99_ms: 500,
    load1: round3(os.loadavg()[0]!),
  });
}

/** Part 3: a million events made in SQL, then pages at random cursors. */
async function changesPages(service: Proc, databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('set search_path to asset_store');
  let first: number;
  let last: number;
  try {
    const made = performance.now();
    // A real event's record as the template, its hash made unique per row.
    await client.query('begin');
    const head = await client.query<{ last: string }>(
      'select last from asset_event_head for update',
    );
    first = Number(head.rows[0]!.last) + 1;
    last = first + EVENTS - 1;
    await client.query(
      `insert into asset_event (pos, type, hash, at, data)
       select g, 'asset.created', h, t.at + g, jsonb_set(t.data, '{hash}', to_jsonb(h))
       from (select at, data from asset_event where data is not null order by pos desc limit 1) t,
         generate_series($1::bigint, $2::bigint) g,
         lateral (select md5(g::text) || md5((g * 7)::text) as h) x`,
      [first, last],
    );
    await client.query('update asset_event_head set last = $1', [last]);
    await client.query('commit');
    await client.query('vacuum analyze asset_event');
    say(`${EVENTS} events made in ${((performance.now() - made) / 1000).toFixed(1)} s`);
  } finally {
    await client.end();
  }
  await settle(service.child.pid!);
  const page = async (after: number) => {
    const started = performance.now();
    const res = await request(`http://127.0.0.1:${service.port}${API}/changes?after=${after}`);
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`changes: ${res.statusCode} ${text}`);
    const { events } = (JSON.parse(text) as { data: { events: unknown[] } }).data;
    if (events.length !== 100) throw new Error(`changes: ${events.length} events`);
    return performance.now() - started;
  };
  const randomCursor = () => first - 1 + Math.floor(Math.random() * (EVENTS - 100));
  for (let i = 0; i < 200; i++) await page(randomCursor());
  const times: number[] = [];
  const pid = service.child.pid!;
  const before = {
    service: cpuSeconds(pid),
    pg: cpuSecondsOf('postgres'),
    bench: benchCpu(),
    machine: machineBusySeconds(),
    at: performance.now(),
  };
  // Four clients at once (`EV_CLIENTS`), as a few consumers paging would.
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (times.length < PAGES) times.push(await page(randomCursor()));
    }),
  );
  printFigure({
    bench: 'events',
    figure: `GET /changes page (100 events) at a random cursor over ${EVENTS} events, ${CLIENTS} clients`,
    pages: times.length,
    p50_ms: round3(quantile(times, 0.5)),
    p95_ms: round3(quantile(times, 0.95)),
    p99_ms: round3(quantile(times, 0.99)),
    target_p95_ms: 20,
    // Where a page's CPU went, in ms: the service, PostgreSQL, this process (the clients).
    cpu_ms_per_page: {
      service: round3(((cpuSeconds(pid) - before.service) * 1000) / times.length),
      pg: round3(((cpuSecondsOf('postgres') - before.pg) * 1000) / times.length),
      bench: round3(((benchCpu() - before.bench) * 1000) / times.length),
    },
    busy_cores: round3(
      (machineBusySeconds() - before.machine) / ((performance.now() - before.at) / 1000),
    ),
    load1: round3(os.loadavg()[0]!),
  });
}

async function main(): Promise<void> {
  if (!process.env.TEST_DATABASE_URL) {
    say('needs TEST_DATABASE_URL (a PostgreSQL server)');
    process.exitCode = 1;
    return;
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-bench-events-'));
  let database: TestDatabase | undefined;
  let service: Proc | undefined;
  const receiver = new Receiver();
  try {
    database = await createTestDatabase('asset_bench_events');
    if (database.target.kind !== 'postgres') throw new Error('expected a server database');
    const databaseUrl = database.target.url;
    const hookUrl = await receiver.start();
    service = await startService(path.join(work, 'service'), databaseUrl, {
      env: { ASSET_STORE_ADMIN_TOKEN: ADMIN, ASSET_STORE_WEBHOOK_ALLOW_PRIVATE: 'true' },
    });
    const only = process.env.EV_ONLY;
    if (!only || only === 'ingest') await ingestRatio(service, receiver, hookUrl);
    if (!only || only === 'latency') await deliveryLatency(service, receiver, hookUrl);
    if (!only || only === 'pages') {
      if (only) await api(service.port, 'POST', '/ingest/data', { data: 'template' });
      await changesPages(service, databaseUrl);
    }
  } finally {
    if (service) await stopProc(service);
    await receiver.close();
    fs.rmSync(work, { recursive: true, force: true });
    await database?.drop();
  }
}

await main();
