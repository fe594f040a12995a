import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import {
  cpuSeconds,
  median,
  multipartBody,
  SERVICE_DIR,
  settle,
  smallFiles,
  startService,
  type Proc,
} from './bench-kit.js';

/**
 * `pnpm --filter asset-store bench:cli`: the built `asset-store upload` of 1,000 files of
 * 4 KiB against the raw ingest rate (autocannon, as `bench:ingest` measures it) with the
 * same number of connections, in one run on one service; then a second upload of the same
 * folder, which must skip them all. TEST_DATABASE_URL: index into a fresh database there
 * (dropped afterwards); else PGlite. Figures and targets: bench/NOTES.md.
 */
const FILES = 1000;
const SIZE = 4096;
const CONNECTIONS = 8;
const PAIRS = 3;
const WARM_REQUESTS = 2000;
const CLI = path.join(SERVICE_DIR, 'dist/src/cli/main.js');

interface CliRound {
  /** Files per second from process start to exit. */
  wallRate: number;
  /** Files per second over the upload itself, as the CLI's summary times it. */
  uploadRate: number;
  wallSeconds: number;
  /** CPU seconds the CLI process used (sampled from /proc every 50 ms, so a little low). */
  cliCpu: number;
  statuses: Record<string, number>;
}

function makeFolder(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < FILES; i++) {
    fs.writeFileSync(path.join(dir, `f${String(i).padStart(4, '0')}.bin`), randomBytes(SIZE));
  }
}

async function runCli(
  port: number,
  dir: string,
  stateFile: string,
  extra: string[] = [],
): Promise<CliRound> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      CLI,
      'upload',
      dir,
      '--json',
      '--concurrency',
      String(CONNECTIONS),
      '--state-file',
      stateFile,
      ...extra,
    ],
    { env: { ...process.env, ASSET_STORE_URL: `http://127.0.0.1:${port}` } },
  );
  let cliCpu = 0;
  const sampler = setInterval(() => {
    try {
      cliCpu = cpuSeconds(child.pid!);
    } catch {
      // The process has just ended; keep the last sample.
    }
  }, 50);
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const wallSeconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  if (code !== 0) throw new Error(`asset-store upload exited ${code}: ${err}`);
  const statuses: Record<string, number> = {};
  for (const line of out.trim().split('\n')) {
    const { status } = JSON.parse(line) as { status: string };
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
  const uploadSeconds = Number(/in ([\d.]+) s\)/.exec(err)?.[1]);
  return {
    wallRate: FILES / wallSeconds,
    uploadRate: FILES / uploadSeconds,
    wallSeconds,
    cliCpu,
    statuses,
  };
}

const x = (r: number) => `${r.toFixed(2)}x`;
const rate = (r: number) => r.toFixed(0).padStart(6);

async function main(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-cli-bench-'));
  let database: TestDatabase | undefined;
  let service: Proc | undefined;
  try {
    if (process.env.TEST_DATABASE_URL) database = await createTestDatabase('asset_cli_bench');
    const databaseUrl = database?.target.kind === 'postgres' ? database.target.url : undefined;
    service = await startService(path.join(work, 'store'), databaseUrl);
    const pid = service.child.pid!;
    const stateFile = path.join(work, 'uploads.json');
    const multipart = multipartBody(randomBytes(SIZE));
    const raw = () =>
      smallFiles(
        service!.port,
        '/api/v1/can/0/ingest',
        multipart.body,
        multipart.type,
        FILES,
        CONNECTIONS,
      );

    // Warm-up, not judged: a fresh service compiles its hot paths over its first
    // thousands of requests (bench/NOTES.md); the CLI round warms its search path.
    await smallFiles(
      service.port,
      '/api/v1/can/0/ingest',
      multipart.body,
      multipart.type,
      WARM_REQUESTS,
      CONNECTIONS,
    );
    makeFolder(path.join(work, 'warm'));
    await runCli(service.port, path.join(work, 'warm'), stateFile);

    const pairs: {
      raw: number;
      cli: CliRound;
      rawCpu: number;
      cliServiceCpu: number;
      forced: CliRound;
    }[] = [];
    let last = '';
    for (let i = 0; i < PAIRS; i++) {
      last = path.join(work, `round-${i}`);
      makeFolder(last);
      await settle(pid);
      let cpu = cpuSeconds(pid);
      const rawRound = await raw();
      const rawCpu = cpuSeconds(pid) - cpu;
      await settle(pid);
      cpu = cpuSeconds(pid);
      const cli = await runCli(service.port, last, stateFile);
      const cliServiceCpu = cpuSeconds(pid) - cpu;
      if (cli.statuses.stored !== FILES)
        throw new Error(`not all stored: ${JSON.stringify(cli.statuses)}`);
      // The same folder again with --force: no skip check, so the CLI's own cost shows.
      await settle(pid);
      const forced = await runCli(service.port, last, stateFile, ['--force']);
      pairs.push({ raw: rawRound.rps, cli, rawCpu, cliServiceCpu, forced });
    }
    await settle(pid);
    const skip = await runCli(service.port, last, stateFile);
    if (skip.statuses.skipped !== FILES)
      throw new Error(`not all skipped: ${JSON.stringify(skip.statuses)}`);

    const uploadRatios = pairs.map((p) => p.cli.uploadRate / p.raw);
    const wallRatios = pairs.map((p) => p.cli.wallRate / p.raw);
    const judged = median(uploadRatios);
    const lines = [
      '',
      `asset-store CLI benchmark (index: ${databaseUrl ? 'PostgreSQL server' : 'embedded PGlite'}; ${os.cpus().length} cores)`,
      `${FILES} files of ${SIZE / 1024} KiB, ${CONNECTIONS} connections; ${PAIRS} pairs, each a raw autocannon round then a CLI upload of new files`,
      '',
      `  raw ingest files/s          ${pairs.map((p) => rate(p.raw)).join(' ')}`,
      `  CLI upload files/s          ${pairs.map((p) => rate(p.cli.uploadRate)).join(' ')}   (from the first file to the last)`,
      `  CLI process files/s         ${pairs.map((p) => rate(p.cli.wallRate)).join(' ')}   (start to exit: node start-up, folder walk included)`,
      `  CLI --force files/s         ${pairs.map((p) => rate(p.forced.uploadRate)).join(' ')}   (no skip check; ratio ${pairs.map((p) => x(p.forced.uploadRate / p.raw)).join(' / ')})`,
      `  ratio, upload               ${uploadRatios.map(x).join(' / ')}  median ${x(judged)}  target >= 0.80x  ${judged >= 0.8 ? 'ok' : 'MISSED'}`,
      `  ratio, process              ${wallRatios.map(x).join(' / ')}  median ${x(median(wallRatios))}`,
      `  service CPU s, raw round    ${pairs.map((p) => p.rawCpu.toFixed(2)).join(' / ')}`,
      `  service CPU s, CLI round    ${pairs.map((p) => p.cliServiceCpu.toFixed(2)).join(' / ')}   (an ingest per file, a lookup per batch)`,
      `  CLI process CPU s           ${pairs.map((p) => p.cli.cliCpu.toFixed(2)).join(' / ')}`,
      `  second run, all skipped     ${skip.wallSeconds.toFixed(2)} s (process start to exit)  target <= 5 s  ${skip.wallSeconds <= 5 ? 'ok' : 'MISSED'}`,
      `  second run, CLI CPU s       ${skip.cliCpu.toFixed(2)}`,
      '',
    ];
    process.stdout.write(lines.join('\n'));
  } finally {
    service?.child.kill('SIGTERM');
    fs.rmSync(work, { recursive: true, force: true });
    await database?.drop();
  }
}

await main();
