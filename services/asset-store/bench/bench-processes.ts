import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import autocannon from 'autocannon';
import { request } from 'undici';

/** Shared by the benches that start the built service: processes, timing, request bodies. */
export const SERVICE_DIR = path.resolve(import.meta.dirname, '..', '..');
const GIB = 1 << 30;

/** A started server process and its port. */
export interface Proc {
  child: ChildProcess;
  port: number;
}

/** A port nothing listens on right now. */
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

/** Polls `check` every 100 ms until it holds; fails after 30 s. */
export async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  const until = Date.now() + 30_000;
  while (!(await check().catch(() => false))) {
    if (Date.now() > until) throw new Error(`${what} did not come up`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts the built service on a fresh port over `root` (PGlite unless `databaseUrl`). */
export async function startService(root: string, databaseUrl: string | undefined): Promise<Proc> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ASSET_STORE_STORAGE_ROOT: root,
    ASSET_STORE_LISTEN: `127.0.0.1:${port}`,
    ASSET_STORE_LOG_LEVEL: 'warn',
    ASSET_STORE_MAX_UPLOAD_BYTES: String(2 * GIB),
    ASSET_STORE_VERIFY_INTERVAL_HOURS: '0',
  };
  if (databaseUrl) env.ASSET_STORE_DATABASE_URL = databaseUrl;
  const child = spawn(process.execPath, [path.join(SERVICE_DIR, 'dist/src/start.cjs')], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitFor(
    async () => (await request(`http://127.0.0.1:${port}/healthz`)).statusCode === 200,
    'asset-store',
  );
  return { child, port };
}

/** CPU seconds (user + system) a process has used so far (Linux /proc). */
export function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
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

/** What one autocannon round measured. */
export interface SmallResult {
  rps: number;
  p99: number;
  errors: number;
}

/** `count` POSTs of `body` over `connections` connections; req/s over the time to the last answer. */
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
  };
}

/** The median of a non-empty list. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A multipart ingest body around `content`, tagged `bench,small`. */
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
