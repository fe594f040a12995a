// Shared pieces of bench:identity: identities, pre-signed requests, bench server children,
// autocannon phases with server CPU accounting, and the single-row insert baseline.
import { fork, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import path from 'node:path';
import { createTestDatabase } from '@svc/testing';
import { openDatabase } from '@svc/database';
import autocannon from 'autocannon';
import { canonicalize } from 'json-canonicalize';
import { sql } from 'kysely';

/** Concurrent connections (and insert workers) of every phase. */
export const CONNECTIONS = 16;
const SPKI_PREFIX_LEN = 12;

/** A bench identity: node:crypto key pair and its relay primary. */
export interface Identity {
  privateKey: KeyObject;
  publicHex: string;
  primary: string;
}

/** A fresh Ed25519 identity (node:crypto: pre-signing must not bottleneck the bench). */
export function identity(): Identity {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const publicHex = publicKey
    .export({ format: 'der', type: 'spki' })
    .subarray(SPKI_PREFIX_LEN)
    .toString('hex');
  return { privateKey, publicHex, primary: `ed25519:${publicHex}` };
}

/** A signed registration body (JSON text) for `handle` on `server`. */
export function signedRegistration(server: string, handle: string, id: Identity): string {
  const payload = { server, handle, primary: id.primary, ts: Math.floor(Date.now() / 1000) };
  const sig = sign(null, Buffer.from(canonicalize(payload)), id.privateKey).toString('hex');
  return JSON.stringify({
    payload,
    signature: { alg: 'ed25519-sha512-jcs', key: id.primary, sig },
  });
}

/** An `X-ID-Auth` value for `lines`, signed now. */
export function authValue(id: Identity, lines: string[]): string {
  const ts = Math.floor(Date.now() / 1000);
  const sig = sign(null, Buffer.from([...lines, String(ts)].join('\n')), id.privateKey);
  return `${ts}:${sig.toString('hex')}`;
}

/** CPU µs per call of `fn`, over `calls` calls. */
export function cpuPerCall(calls: number, fn: () => void): number {
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < calls; i++) fn();
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / calls;
}

/**
 * Measures two functions in alternating short rounds, so load changes on a shared machine
 * hit both alike; returns the median µs per call of each and the median of the per-round ratios.
 */
export function interleaved(rounds: number, calls: number, a: () => void, b: () => void) {
  const as: number[] = [];
  const bs: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const x = cpuPerCall(calls, a);
    const y = cpuPerCall(calls, b);
    as.push(x);
    bs.push(y);
    ratios.push(y / x);
  }
  const median = (v: number[]) => [...v].sort((p, q) => p - q)[Math.floor(v.length / 2)] ?? NaN;
  return { a: median(as), b: median(bs), ratio: median(ratios) };
}

/** A bench server child process. */
export interface Child {
  proc: ChildProcess;
  url: string;
  cpu(): Promise<number>;
  stop(): Promise<void>;
}

/** With BENCH_CPU_PROF=<folder>, each server child writes a V8 CPU profile there on exit. */
function profileArgs(): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
}

/** Forks `bench-server.ts` in `mode` and waits for its port. */
export async function startChild(mode: string, env: NodeJS.ProcessEnv): Promise<Child> {
  const proc = fork(path.join(import.meta.dirname, 'bench-server.ts'), [mode], {
    execArgv: ['--conditions=source', '--import', 'tsx', ...profileArgs()],
    env: { ...process.env, ...env },
  });
  const port = await new Promise<number>((resolve, reject) => {
    proc.once('message', (m) => resolve((m as { port: number }).port));
    proc.once('exit', (code) => reject(new Error(`bench server exited ${code}`)));
  });
  return {
    proc,
    url: `http://127.0.0.1:${port}`,
    cpu: () =>
      new Promise((resolve) => {
        proc.once('message', (m) => {
          const { user, system } = (m as { cpu: NodeJS.CpuUsage }).cpu;
          resolve(user + system);
        });
        proc.send('cpu');
      }),
    stop: () =>
      new Promise((resolve) => {
        proc.once('exit', () => resolve());
        proc.send('stop');
      }),
  };
}

/** What one autocannon phase measured. */
export interface Phase {
  rps: number;
  total: number;
  non2xx: number;
  errors: number;
  p99: number;
  cpuMicrosPerRequest: number;
}

/**
 * Runs autocannon against a child and reads the child's CPU time around it. The rate is
 * timed here, from the start to the last response: autocannon ends a fixed-`amount` run
 * only at its next one-second sample tick, so its own `duration` rounds such runs up to
 * whole seconds (1,500 requests in 1.1 s would read as 750/s).
 */
export async function phase(child: Child, opts: Omit<autocannon.Options, 'url'>): Promise<Phase> {
  const cpu0 = await child.cpu();
  const t0 = performance.now();
  let last = t0;
  const r = await new Promise<autocannon.Result>((resolve, reject) => {
    const run = autocannon({ connections: CONNECTIONS, ...opts, url: child.url }, (err, res) =>
      err ? reject(err as Error) : resolve(res),
    );
    run.on('response', () => {
      last = performance.now();
    });
  });
  const cpu = (await child.cpu()) - cpu0;
  return {
    rps: r.requests.total / ((last - t0) / 1000),
    total: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
    p99: r.latency.p99,
    cpuMicrosPerRequest: cpu / Math.max(1, r.requests.total),
  };
}

/** Cycles through pre-built requests; each connection takes the next one. */
export function cycling(requests: autocannon.Request[], once = false): autocannon.Request[] {
  let i = 0;
  return [
    {
      setupRequest: (req) => {
        if (once && i >= requests.length) return null as unknown as autocannon.Request;
        const next = requests[i % requests.length];
        i += 1;
        return { ...req, ...next };
      },
    },
  ];
}

/** A scratch table for the single-row insert baseline; `run` measures inserts/s. */
export async function openInsertBench() {
  const testDb = await createTestDatabase('bench_insert');
  const handle = await openDatabase<{ bench_row: { id: string; body: string } }>(
    testDb.target,
    'bench_insert',
  );
  await sql`create table bench_row (id text primary key, body text not null)`.execute(handle.db);
  let round = 0;
  return {
    async run(seconds: number): Promise<number> {
      round += 1;
      let n = 0;
      const end = Date.now() + seconds * 1000;
      const t0 = process.hrtime.bigint();
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async (_, w) => {
          while (Date.now() < end) {
            await handle.db
              .insertInto('bench_row')
              .values({ id: `${round}-${w}-${n}`, body: 'x'.repeat(120) })
              .execute();
            n += 1;
          }
        }),
      );
      return n / (Number(process.hrtime.bigint() - t0) / 1e9);
    },
    async close(): Promise<void> {
      await handle.close();
      await testDb.drop();
    },
  };
}

/** Median of some numbers. */
export const median = (v: readonly number[]) =>
  [...v].sort((p, q) => p - q)[Math.floor(v.length / 2)] ?? NaN;

/** A number with thousands separators and fixed digits. */
export const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
