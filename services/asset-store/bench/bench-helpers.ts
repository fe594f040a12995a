import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Readable } from 'node:stream';
import { request } from 'undici';

/** What the ingest and tus benches share: the service as deployed, and how they measure it. */
export const SERVICE_DIR = path.resolve(import.meta.dirname, '..', '..');
export const GIB = 1 << 30;

/** A child process serving on `port`. */
export interface Proc {
  child: ChildProcess;
  port: number;
}

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

export async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  const until = Date.now() + 30_000;
  while (!(await check().catch(() => false))) {
    if (Date.now() > until) throw new Error(`${what} did not come up`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Starts the built service (`dist/src/start.cjs`) on a free port over `root`, indexing into
 * `databaseUrl` when given (else PGlite), with the periodic scrub off.
 */
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

/** Samples a process's resident set every 20 ms (Linux /proc). */
export class RssSampler {
  peak = 0;
  #timer: NodeJS.Timeout | undefined;
  constructor(private readonly pid: number) {}
  now(): number {
    const status = fs.readFileSync(`/proc/${this.pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
  }
  start(): number {
    const base = this.now();
    this.peak = base;
    this.#timer = setInterval(() => {
      this.peak = Math.max(this.peak, this.now());
    }, 20);
    return base;
  }
  stop(): number {
    clearInterval(this.#timer);
    return Math.max(this.peak, this.now());
  }
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

/** A 1 GiB file of random blocks, each block numbered so no two are alike. */
export function makeLargeFile(file: string): void {
  const block = randomBytes(16 << 20);
  const fd = fs.openSync(file, 'w');
  for (let written = 0; written < GIB; written += block.length) {
    block.writeUInt32BE(written >>> 0, 0);
    fs.writeSync(fd, block);
  }
  fs.closeSync(fd);
}

/**
 * The same client path as the baseline (one file stream, 1 MiB reads, known length), with
 * the multipart framing around it, so the comparison measures the servers.
 */
export async function uploadLargeToService(port: number, file: string): Promise<number> {
  const boundary = `bench-${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="large.bin"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  async function* body() {
    yield head;
    yield* fs.createReadStream(file, { highWaterMark: 1 << 20 });
    yield tail;
  }
  const started = performance.now();
  const res = await request(`http://127.0.0.1:${port}/api/v1/can/0/ingest`, {
    method: 'POST',
    body: Readable.from(body()),
    headers: {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(head.length + fs.statSync(file).size + tail.length),
    },
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`service ingest: ${res.statusCode} ${text}`);
  return performance.now() - started;
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
