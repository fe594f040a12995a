import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { createTestDatabase, type TestDatabase } from '@svc/config/testing';
import autocannon from 'autocannon';
import { Readable } from 'node:stream';
import { request } from 'undici';

/**
 * `pnpm --filter asset-store bench:ingest`: the service (a child process, as deployed)
 * against a bare node:http baseline doing the same hash, fsync and rename, in one run:
 * one 1 GiB file, then 2,000 files of 4 KiB (after a warm-up round of as many, for both).
 * Loopback only; the 1 GiB file lives in /tmp and is deleted afterwards. Set
 * TEST_DATABASE_URL to index into a real Postgres (a fresh database, dropped afterwards);
 * without it the service uses embedded PGlite.
 */
const SERVICE_DIR = path.resolve(import.meta.dirname, '..', '..');
const GIB = 1 << 30;
const SMALL = 4096;
const SMALL_COUNT = 2000;
const CONNECTIONS = 8;
const LARGE_RUNS = 2;

interface Proc {
  child: ChildProcess;
  port: number;
}

function freePort(): Promise<number> {
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

async function startService(root: string, databaseUrl: string | undefined): Promise<Proc> {
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
  const child = spawn(process.execPath, [path.join(SERVICE_DIR, 'dist/src/main.js')], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitFor(
    async () => (await request(`http://127.0.0.1:${port}/healthz`)).statusCode === 200,
    'asset-store',
  );
  return { child, port };
}

async function startBaseline(root: string): Promise<Proc> {
  const child = spawn(
    process.execPath,
    [path.join(SERVICE_DIR, 'dist/bench/baseline-server.js'), root, '0'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout }).once('line', resolve),
  );
  return { child, port: (JSON.parse(line) as { port: number }).port };
}

/** Samples a process's resident set every 20 ms (Linux /proc). */
class RssSampler {
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
function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Waits until a process has been nearly idle for half a second, so work it does after
 * answering (the verifier re-hashing a new file) does not land in the next measurement.
 */
async function settle(pid: number): Promise<void> {
  const until = Date.now() + 60_000;
  let last = cpuSeconds(pid);
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 500));
    const now = cpuSeconds(pid);
    if (now - last < 0.02) return;
    last = now;
  }
}

function makeLargeFile(file: string): void {
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
async function uploadLargeToService(port: number, file: string): Promise<number> {
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

async function uploadLargeToBaseline(port: number, file: string): Promise<number> {
  const started = performance.now();
  const res = await request(`http://127.0.0.1:${port}/`, {
    method: 'POST',
    body: fs.createReadStream(file, { highWaterMark: 1 << 20 }),
    headers: { 'content-length': String(fs.statSync(file).size) },
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`baseline ingest: ${res.statusCode} ${text}`);
  return performance.now() - started;
}

interface SmallResult {
  rps: number;
  p99: number;
  errors: number;
}

async function smallFiles(
  port: number,
  urlPath: string,
  body: Buffer,
  contentType: string,
  count = SMALL_COUNT,
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
        connections: CONNECTIONS,
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

function multipartBody(content: Buffer): { body: Buffer; type: string } {
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

const mb = (bytes: number) => (bytes / (1 << 20)).toFixed(1);
const pct = (x: number) => `${x.toFixed(2)}x`;

async function main(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-bench-'));
  const largeFile = path.join(work, 'large-1GiB.bin');
  let database: TestDatabase | undefined;
  const procs: Proc[] = [];
  try {
    process.stdout.write('preparing a 1 GiB file in /tmp …\n');
    makeLargeFile(largeFile);
    if (process.env.TEST_DATABASE_URL) database = await createTestDatabase('asset_bench');
    const databaseUrl = database?.target.kind === 'postgres' ? database.target.url : undefined;
    const service = await startService(path.join(work, 'service'), databaseUrl);
    const baseline = await startBaseline(path.join(work, 'baseline'));
    procs.push(service, baseline);
    const rss = new RssSampler(service.child.pid!);

    let serviceMs = Infinity;
    let baselineMs = Infinity;
    let rssGrowth = 0;
    let serviceCpu = Infinity;
    let baselineCpu = Infinity;
    const servicePid = service.child.pid!;
    const baselinePid = baseline.child.pid!;
    for (let run = 0; run < LARGE_RUNS; run++) {
      await settle(servicePid);
      let cpu = cpuSeconds(baselinePid);
      baselineMs = Math.min(baselineMs, await uploadLargeToBaseline(baseline.port, largeFile));
      baselineCpu = Math.min(baselineCpu, cpuSeconds(baselinePid) - cpu);
      const before = rss.start();
      cpu = cpuSeconds(servicePid);
      serviceMs = Math.min(serviceMs, await uploadLargeToService(service.port, largeFile));
      serviceCpu = Math.min(serviceCpu, cpuSeconds(servicePid) - cpu);
      rssGrowth = Math.max(rssGrowth, rss.stop() - before);
    }
    await settle(servicePid);
    const serviceMBs = GIB / (1 << 20) / (serviceMs / 1000);
    const baselineMBs = GIB / (1 << 20) / (baselineMs / 1000);

    const content = randomBytes(SMALL);
    const multipart = multipartBody(content);
    // The same warm-up round for both, not judged: a freshly started process spends its
    // first thousands of requests compiling its hot paths (far more code in the service
    // than in the baseline), which is start-up cost, not ingest throughput.
    const warmBaseline = await smallFiles(baseline.port, '/', content, 'application/octet-stream');
    const warmService = await smallFiles(
      service.port,
      '/api/v1/can/0/ingest',
      multipart.body,
      multipart.type,
    );
    await settle(servicePid);
    let cpu = cpuSeconds(baselinePid);
    const smallBaseline = await smallFiles(baseline.port, '/', content, 'application/octet-stream');
    const smallBaselineCpu = cpuSeconds(baselinePid) - cpu;
    rss.start();
    cpu = cpuSeconds(servicePid);
    const smallService = await smallFiles(
      service.port,
      '/api/v1/can/0/ingest',
      multipart.body,
      multipart.type,
    );
    const smallServiceCpu = cpuSeconds(servicePid) - cpu;
    const smallPeak = rss.stop();

    const largeRatio = serviceMBs / baselineMBs;
    const smallRatio = smallService.rps / smallBaseline.rps;
    const lines = [
      '',
      `asset-store ingest benchmark (index: ${databaseUrl ? 'PostgreSQL server' : 'embedded PGlite'}; ${os.cpus().length} cores)`,
      '',
      '1 GiB file (best of 2)        service      baseline     ratio   target',
      `  throughput MB/s             ${serviceMBs.toFixed(0).padEnd(12)} ${baselineMBs.toFixed(0).padEnd(12)} ${pct(largeRatio).padEnd(7)} >= 0.80x  ${largeRatio >= 0.8 ? 'ok' : 'MISSED'}`,
      `  server CPU seconds          ${serviceCpu.toFixed(2).padEnd(12)} ${baselineCpu.toFixed(2)}`,
      `  service RSS growth MB       ${mb(rssGrowth).padEnd(12)} ${''.padEnd(12)} ${''.padEnd(7)} < 64      ${rssGrowth < 64 << 20 ? 'ok' : 'MISSED'}`,
      '',
      `${SMALL_COUNT} x 4 KiB, ${CONNECTIONS} connections, after a warm-up round of as many`,
      `  req/s                       ${smallService.rps.toFixed(0).padEnd(12)} ${smallBaseline.rps.toFixed(0).padEnd(12)} ${pct(smallRatio).padEnd(7)} >= 0.50x  ${smallRatio >= 0.5 ? 'ok' : 'MISSED'}`,
      `  p99 latency ms              ${String(smallService.p99).padEnd(12)} ${String(smallBaseline.p99).padEnd(12)} ${''.padEnd(7)} < 20      ${smallService.p99 < 20 ? 'ok' : 'MISSED'}`,
      `  server CPU seconds          ${smallServiceCpu.toFixed(2).padEnd(12)} ${smallBaselineCpu.toFixed(2)}`,
      `  errors                      ${String(smallService.errors).padEnd(12)} ${String(smallBaseline.errors).padEnd(12)}`,
      `  service peak RSS MB         ${mb(smallPeak)}`,
      `  warm-up round (not judged)  ${warmService.rps.toFixed(0).padEnd(12)} ${warmBaseline.rps.toFixed(0).padEnd(12)} ${pct(warmService.rps / warmBaseline.rps).padEnd(7)} req/s; p99 ${warmService.p99} / ${warmBaseline.p99} ms`,
      '',
    ];
    process.stdout.write(lines.join('\n'));
  } finally {
    for (const p of procs) p.child.kill('SIGTERM');
    fs.rmSync(work, { recursive: true, force: true });
    await database?.drop();
  }
}

await main();
