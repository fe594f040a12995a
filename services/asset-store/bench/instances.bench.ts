import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase } from '@svc/testing';
import { sql } from 'kysely';
import { TimestampAllocator } from '../src/timestamps/timestamp-allocator.js';
import {
  allocateTimestamps,
  timestampRow,
} from '../src/timestamps/timestamp-allocator.repository.js';
import { soloHandle } from '../src/timestamps/timestamp-solo.js';
import { openIndex, SCHEMA } from '../src/db/database.js';
import {
  cpuSeconds,
  median,
  multipartBody,
  settle,
  smallFiles,
  startService,
  type Proc,
} from './bench-kit.js';

/**
 * `pnpm --filter asset-store bench:instances` (needs TEST_DATABASE_URL): two built
 * instances on one fresh database and one storage root. Pairs of rounds of 2,000 ingests of
 * 4 KiB over 8 connections: all to one instance, then split over both (4 connections
 * each); the target is both together >= 0.9 x one alone. Each pair also times one instance
 * alone at 4 connections, the load each instance gets in the split round, to tell what two
 * processes cost from what half the concurrency costs (bench/NOTES.md, "Why two instances
 * miss 0.9x"). Then the timestamp allocator alone: one round trip's latency, and what a
 * timestamp costs with 8 callers at once.
 */
const SMALL = 4096;
const COUNT = 2000;
const CONNECTIONS = 8;
const WARM_PAIRS = 2;
const PAIRS = 3;

const pct = (x: number) => `${x.toFixed(2)}x`;

async function settleAll(procs: Proc[]): Promise<void> {
  await Promise.all(procs.map((p) => settle(p.child.pid!)));
}

/** One round's figures. */
interface Round {
  rps: number;
  p99: number;
  errors: number;
  cpu: number;
}

/** A pair: a round to one instance, then one split over both; and one instance at half the connections. */
interface Pair {
  one: Round;
  two: Round;
  half: Round;
}

/** Ingest rate and CPU seconds of `COUNT` ingests split evenly over `targets`. */
async function round(
  targets: Proc[],
  all: Proc[],
  body: { body: Buffer; type: string },
  connections = CONNECTIONS,
): Promise<Round> {
  await settleAll(all);
  const cpu = all.reduce((s, p) => s + cpuSeconds(p.child.pid!), 0);
  const started = performance.now();
  const results = await Promise.all(
    targets.map((p) =>
      smallFiles(
        p.port,
        '/api/v1/can/0/ingest',
        body.body,
        body.type,
        COUNT / targets.length,
        connections / targets.length,
      ),
    ),
  );
  // Up to the last answer: autocannon ends each run at its next one-second tick, which would
  // round every round up to whole seconds (`smallFiles`).
  const seconds = (Math.max(...results.map((r) => r.lastAnswerAt)) - started) / 1000;
  return {
    rps: COUNT / seconds,
    p99: Math.max(...results.map((r) => r.p99)),
    errors: results.reduce((s, r) => s + r.errors, 0),
    cpu: all.reduce((s, p) => s + cpuSeconds(p.child.pid!), 0) - cpu,
  };
}

async function allocatorCost(url: string) {
  const index = await openIndex({ kind: 'postgres', url });
  try {
    const trips: number[] = [];
    for (let i = 0; i < 500; i++) {
      const t = performance.now();
      await allocateTimestamps(index.db, soloHandle(SCHEMA).key, Date.now(), 1);
      trips.push((performance.now() - t) * 1000);
    }
    let calls = 0;
    const row = timestampRow(index.db, soloHandle(SCHEMA));
    // Shared allocations only (no solo issuer): what each one costs.
    const allocator = new TimestampAllocator(Date.now, {
      ...row,
      allocate: (ms, n) => {
        calls++;
        return row.allocate(ms, n);
      },
    });
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        for (let i = 0; i < 2000 / CONNECTIONS; i++) await allocator.next();
      }),
    );
    const perTimestampUs = ((performance.now() - started) * 1000) / 2000;
    return { tripUs: median(trips), perTimestampUs, perTrip: 2000 / calls };
  } finally {
    await index.close();
  }
}

async function main(): Promise<void> {
  if (!process.env.TEST_DATABASE_URL) throw new Error('bench:instances needs TEST_DATABASE_URL');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-instances-bench-'));
  const database = await createTestDatabase('asset_instances_bench');
  const procs: Proc[] = [];
  try {
    if (database.target.kind !== 'postgres') throw new Error('needs a PostgreSQL server');
    const url = database.target.url;
    const root = path.join(work, 'service');
    // One after the other: the first migrates the fresh database.
    procs.push(await startService(root, url));
    procs.push(await startService(root, url));
    const [a, b] = procs as [Proc, Proc];
    const body = multipartBody(Buffer.alloc(SMALL, 7));
    const pair = async (): Promise<Pair> => ({
      one: await round([a], procs, body),
      two: await round([a, b], procs, body),
      half: await round([a], procs, body, CONNECTIONS / 2),
    });
    const warm: Pair[] = [];
    for (let i = 0; i < WARM_PAIRS; i++) warm.push(await pair());
    const pairs: Pair[] = [];
    for (let i = 0; i < PAIRS; i++) pairs.push(await pair());
    const ratios = pairs.map((p) => p.two.rps / p.one.rps);
    const ratio = median(ratios);
    const check = await openIndex({ kind: 'postgres', url });
    const counts = await sql<{ rows: number; distinct: number }>`
      select count(*)::int as rows, count(distinct timestamp)::int as distinct from asset
    `.execute(check.db);
    await check.close();
    const cost = await allocatorCost(url);
    const m = (pick: (p: Pair) => number) => median(pairs.map(pick));
    const lines = [
      '',
      `asset-store: two instances on one PostgreSQL database and one storage root (${os.cpus().length} cores)`,
      '',
      `${COUNT} x 4 KiB, ${CONNECTIONS} connections in all, median of ${PAIRS} pairs after ${WARM_PAIRS} warm-up pairs`,
      `                              one alone    both together  ratio   target`,
      `  req/s                       ${m((p) => p.one.rps)
        .toFixed(0)
        .padEnd(12)} ${m((p) => p.two.rps)
        .toFixed(0)
        .padEnd(14)} ${pct(ratio).padEnd(7)} >= 0.90x  ${ratio >= 0.9 ? 'ok' : 'MISSED'}`,
      `  p99 latency ms              ${String(m((p) => p.one.p99)).padEnd(12)} ${String(m((p) => p.two.p99))}`,
      `  CPU seconds (both services) ${m((p) => p.one.cpu)
        .toFixed(2)
        .padEnd(12)} ${m((p) => p.two.cpu).toFixed(2)}`,
      `  one alone, ${CONNECTIONS / 2} connections    ${m((p) => p.half.rps).toFixed(0)} req/s, ${pct(m((p) => p.half.rps / p.one.rps))} of one alone; both together ${pct(m((p) => p.two.rps / p.half.rps))} of it (not judged)`,
      `  pairs: req/s one            ${pairs.map((p) => p.one.rps.toFixed(0)).join(' / ')}`,
      `         req/s both           ${pairs.map((p) => p.two.rps.toFixed(0)).join(' / ')}`,
      `         ratio                ${ratios.map(pct).join(' / ')}`,
      `  warm-up req/s one / both    ${warm.map((p) => `${p.one.rps.toFixed(0)}/${p.two.rps.toFixed(0)}`).join(', ')} (not judged)`,
      `  errors (all rounds)         ${[...warm, ...pairs].reduce((s, p) => s + p.one.errors + p.two.errors, 0)}`,
      `  index: rows / distinct timestamps   ${counts.rows[0]!.rows} / ${counts.rows[0]!.distinct}`,
      '',
      'timestamp allocator alone',
      `  one round trip (median of 500)        ${cost.tripUs.toFixed(0)} µs`,
      `  per timestamp, ${CONNECTIONS} callers at once      ${cost.perTimestampUs.toFixed(0)} µs (${cost.perTrip.toFixed(1)} timestamps per round trip)`,
      '',
    ];
    process.stdout.write(lines.join('\n'));
  } finally {
    for (const p of procs) p.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    fs.rmSync(work, { recursive: true, force: true });
    await database.drop();
  }
}

await main();
