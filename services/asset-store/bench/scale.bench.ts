import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase } from '@svc/testing';
import {
  CpuCap,
  measurePhase,
  saturated,
  usageLine,
  type PhaseUsage,
} from '@svc/testing/bench-cpu';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import { openIndex } from '../src/db/database.js';
import {
  multipartBody,
  settle,
  smallFiles,
  startService,
  stopProc,
  type Proc,
} from './bench-kit.js';

/**
 * `pnpm --filter asset-store bench:scale` (needs TEST_DATABASE_URL, and root for cgroups):
 * N = 1, 2, 3 built instances on one fresh database and one storage root, each in a cgroup of
 * its own capped at 0.4 CPU (cgroup v1 `cpu.cfs_quota_us`); the load generator and
 * PostgreSQL uncapped. 4 KiB ingests (`PER_INSTANCE` per instance, 8 connections each) and 4
 * KiB downloads (`BENCH_SECONDS` per phase, 8 connections each), phases in the order
 * 1,2,3,3,2,1. Target: N instances ≥ 0.85 × N × one. Each phase prints what every part used,
 * so a miss names what saturated.
 */
const CPUS = Number(process.env.BENCH_CPUS ?? 0.4);
const PER_INSTANCE = Number(process.env.BENCH_INGESTS ?? 600);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 8;
const INSTANCES = 3;
const TARGET = 0.85;
const ORDER = [1, 2, 3, 3, 2, 1];

interface Phase {
  n: number;
  rate: number;
  errors: number;
  usage: PhaseUsage;
}

function report(what: string, phases: Phase[]): string[] {
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const of = (n: number) => phases.filter((p) => p.n === n);
  const one = mean(of(1).map((p) => p.rate));
  const lines = [
    '',
    `${`${what} (mean of 2 phases)`.padEnd(37)}measured   N × one   ratio   target`,
  ];
  for (const n of [1, 2, 3]) {
    const r = mean(of(n).map((p) => p.rate));
    const ratio = r / (n * one);
    lines.push(
      `  N=${n}`.padEnd(33) +
        `${r.toFixed(0).padStart(8)}  ${(n * one).toFixed(0).padStart(8)}   ${ratio.toFixed(2)}   ` +
        (n === 1 ? '(baseline)' : `≥ ${TARGET} ${ratio >= TARGET ? 'ok' : 'MISSED'}`) +
        ` (phases ${of(n)
          .map((p) => p.rate.toFixed(0))
          .join(' / ')})`,
    );
  }
  return lines;
}

async function main(): Promise<void> {
  if (!process.env.TEST_DATABASE_URL) throw new Error('bench:scale needs TEST_DATABASE_URL');
  const caps = Array.from({ length: INSTANCES }, (_, i) =>
    CpuCap.create(`bench-scale-asset-${i}`, CPUS),
  );
  if (caps.some((c) => !c)) {
    throw new Error('bench:scale needs a writable cgroup v1 CPU controller (/sys/fs/cgroup/cpu)');
  }
  const groups = caps as CpuCap[];
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-scale-bench-'));
  const database = await createTestDatabase('asset_scale_bench');
  const procs: Proc[] = [];
  try {
    if (database.target.kind !== 'postgres') throw new Error('needs a PostgreSQL server');
    const root = path.join(work, 'service');
    // One after the other: the first migrates the fresh database.
    for (const cap of groups) procs.push(await startService(root, database.target.url, { cap }));
    const pids = procs.map((p) => p.child.pid!);
    // The server processes serving the bench's database (a shared server serves others too).
    const index = await openIndex({ kind: 'postgres', url: database.target.url });
    const backends = async () =>
      (
        await sql<{ pid: number }>`select pid from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid()`.execute(index.db)
      ).rows.map((r) => r.pid);
    const body = multipartBody(Buffer.alloc(4096, 7));
    const hashes: string[] = [];
    const ingestPhase = async (n: number, count: number) => {
      await Promise.all(pids.map((pid) => settle(pid)));
      const started = performance.now();
      const results = await Promise.all(
        procs
          .slice(0, n)
          .map((p) =>
            smallFiles(p.port, '/api/v1/can/0/ingest', body.body, body.type, count, CONNECTIONS),
          ),
      );
      const seconds = (Math.max(...results.map((r) => r.lastAnswerAt)) - started) / 1000;
      return { rate: (n * count) / seconds, errors: results.reduce((s, r) => s + r.errors, 0) };
    };
    const downloadPhase = async (n: number, seconds: number) => {
      const runs = await Promise.all(
        procs.slice(0, n).map((p, i) => {
          let next = i * 997;
          return autocannon({
            url: `http://127.0.0.1:${p.port}/`,
            connections: CONNECTIONS,
            duration: seconds,
            requests: [
              {
                method: 'GET',
                setupRequest: (req) => ({
                  ...req,
                  path: `/api/v1/can/0/asset/${hashes[next++ % hashes.length]}`,
                }),
              },
            ],
          });
        }),
      );
      return {
        rate: runs.reduce((s, r) => s + r.requests.total / r.duration, 0),
        errors: runs.reduce((s, r) => s + r.non2xx + r.errors, 0),
      };
    };
    console.log(
      `bench:scale (asset-store; ${INSTANCES} built instances on one database and one storage root, ` +
        `each capped at ${CPUS} CPU in its own cgroup; ${CONNECTIONS} connections per instance; loopback)`,
    );
    // Unjudged: every instance's paths compiled, and files to download.
    for (const n of [1, 2, 3]) await ingestPhase(n, 100);
    const ingests: Phase[] = [];
    for (const n of ORDER) {
      const { result, usage } = await measurePhase(
        pids,
        groups,
        () => ingestPhase(n, PER_INSTANCE),
        backends,
      );
      ingests.push({ n, ...result, usage });
      console.log(
        `  ingest N=${n}: ${result.rate.toFixed(0)}/s (${result.errors} errors) — ${usageLine(usage, n, 'instances')}; bound: ${saturated(usage, n, CPUS, 'instances')}`,
      );
    }
    const rows = await index.db
      .selectFrom('asset')
      .select('hash')
      .orderBy(sql`random()`)
      .limit(2000)
      .execute();
    hashes.push(...rows.map((r) => r.hash));
    await Promise.all(pids.map((pid) => settle(pid)));
    for (const n of [1, 2, 3]) await downloadPhase(n, 1);
    const downloads: Phase[] = [];
    for (const n of ORDER) {
      const { result, usage } = await measurePhase(
        pids,
        groups,
        () => downloadPhase(n, SECONDS),
        backends,
      );
      downloads.push({ n, ...result, usage });
      console.log(
        `  download N=${n}: ${result.rate.toFixed(0)}/s (${result.errors} errors) — ${usageLine(usage, n, 'instances')}; bound: ${saturated(usage, n, CPUS, 'instances')}`,
      );
    }
    await index.close();
    for (const line of [
      ...report('4 KiB ingests/s', ingests),
      ...report('4 KiB downloads/s', downloads),
    ]) {
      console.log(line);
    }
  } finally {
    for (const p of procs) await stopProc(p);
    for (const c of groups) c.remove();
    fs.rmSync(work, { recursive: true, force: true });
    await database.drop();
  }
}

await main();
// Everything is printed and put away; a handle left behind must not keep the bench lock held.
process.exit(process.exitCode ?? 0);
