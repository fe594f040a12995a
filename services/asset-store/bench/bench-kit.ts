import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { CpuCap } from '@svc/testing/bench-cpu';
import autocannon from 'autocannon';
import { request } from 'undici';

/** What the ingest benches share: starting the built service, timing rounds of small files. */

export const SERVICE_DIR = path.resolve(import.meta.dirname, '..', '..');
export const GIB = 1 << 30;

/** A server the bench started, and its port. */
export interface Proc {
  child: ChildProcess;
  port: number;
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  const until = Date.now() + 30_000;
  while (!(await check().catch(() => false))) {
    if (Date.now() > until) throw new Error(`${what} did not come up`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Where a service is started from, and settings of its own (S3, admin token). */
export interface StartOptions {
  /** A built asset-store folder (another worktree's, for an A/B of two builds); this one by default. */
  serviceDir?: string;
  env?: NodeJS.ProcessEnv;
  /** A CPU group the service runs in from its start (bench:scale). */
  cap?: CpuCap;
}

/** Starts the built service (`dist/src/start.cjs`) on `root`, indexing into `databaseUrl` or PGlite. */
export async function startService(
  root: string,
  databaseUrl: string | undefined,
  options: StartOptions = {},
): Promise<Proc> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...options.env,
    ASSET_STORE_STORAGE_ROOT: root,
    ASSET_STORE_LISTEN: `127.0.0.1:${port}`,
    ASSET_STORE_LOG_LEVEL: 'warn',
    ASSET_STORE_MAX_UPLOAD_BYTES: String(2 * GIB),
    ASSET_STORE_VERIFY_INTERVAL_HOURS: '0',
  };
  if (databaseUrl) env.ASSET_STORE_DATABASE_URL = databaseUrl;
  const dir = options.serviceDir ?? SERVICE_DIR;
  // BENCH_CPU_PROF=<folder>: the service writes a V8 CPU profile there when it stops.
  const profile = process.env.BENCH_CPU_PROF;
  const flags = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [];
  const child = spawn(process.execPath, [...flags, path.join(dir, 'dist/src/start.cjs')], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (options.cap && child.pid) options.cap.add(child.pid);
  await waitFor(
    async () => (await request(`http://127.0.0.1:${port}/healthz`)).statusCode === 200,
    'asset-store',
  );
  return { child, port };
}

/** Stops a server the bench started and waits until it has exited. */
export async function stopProc(proc: Proc): Promise<void> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.child.once('exit', resolve));
  proc.child.kill('SIGTERM');
  await exited;
}

/** A positive number from the environment, or `fallback` when unset; anything else stops the bench. */
export function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name}: expected a positive number, got ${raw}`);
  return value;
}

/** CPU seconds (user + system) a process has used so far (Linux /proc). */
export function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The machine's busy CPU seconds so far, every core (`/proc/stat`: all but idle and iowait). */
export function machineBusySeconds(): number {
  const [, ...ticks] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const n = ticks.map(Number);
  return (n.reduce((a, b) => a + b, 0) - n[3]! - n[4]!) / 100;
}

/** CPU seconds of every process named `name` (PostgreSQL's backends: `postgres`). */
export function cpuSecondsOf(name: string): number {
  let total = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== name) continue;
      const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      total += (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return total;
}

/**
 * Waits until a process has been nearly idle for half a second, so work it does after
 * answering (the verifier re-hashing a new file) does not land in the next measurement.
 */
export async function settle(pid: number): Promise<void> {
  const until = Date.now() + 60_000;
  let last = cpuSeconds(pid);
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 500));
    const now = cpuSeconds(pid);
    if (now - last < 0.02) return;
    last = now;
  }
}

/** One round of small requests: its rate, its p99 and its failures. */
export interface SmallResult {
  rps: number;
  p99: number;
  errors: number;
  /** `performance.now()` at the last answer, for rounds that run several at once. */
  lastAnswerAt: number;
}

/** `count` POSTs of `body` to `urlPath` over `connections` connections (autocannon). */
export async function smallFiles(
  port: number,
  urlPath: string,
  body: Buffer,
  contentType: string,
  count: number,
  connections: number,
): Promise<SmallResult> {
  // autocannon reports its duration at its next one-second tick after the last answer,
  // which would round every run up to whole seconds: time the answers themselves.
  const started = performance.now();
  let lastAnswer = started;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${port}${urlPath}`,
        method: 'POST',
        headers: { 'content-type': contentType },
        body,
        connections,
        amount: count,
      },
      (err: Error | null, res: autocannon.Result) => (err ? reject(err) : resolve(res)),
    );
    instance.on('response', () => {
      lastAnswer = performance.now();
    });
  });
  return {
    rps: count / ((lastAnswer - started) / 1000),
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
    lastAnswerAt: lastAnswer,
  };
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A file ingest's multipart body around `content`, tagged `bench,small`. */
export function multipartBody(content: Buffer): { body: Buffer; type: string } {
  const boundary = `bench-${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="tags"\r\n\r\nbench,small\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="small.bin"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return {
    body: Buffer.concat([head, content, tail]),
    type: `multipart/form-data; boundary=${boundary}`,
  };
}

/** One measured figure as one JSON line on stdout (progress goes to stderr), for scripts. */
export function printFigure(figure: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(figure)}\n`);
}

/** A ratio or rate kept to three decimals in the JSON lines. */
export const round3 = (x: number): number => Math.round(x * 1000) / 1000;
