import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import * as tus from 'tus-js-client';
import { cpuSeconds, GIB, median, settle, startService, type Proc } from './bench-kit.js';
import { makeLargeFile, RssSampler, uploadLargeToService } from './bench-large.js';

/**
 * `pnpm --filter asset-store bench:tus`: one 1 GiB file stored by the same service, in
 * pairs: a plain `POST /ingest`, then a tus upload (tus-js-client, 8 MiB chunks) right after
 * it, so each pair compares neighbouring minutes of a machine whose speed swings. Judged by
 * the median pair: tus ≥ 0.7 × plain MB/s, and the service's RSS growth during the tus
 * uploads < 64 MB. Set TEST_DATABASE_URL to index into a real Postgres.
 */
const PAIRS = 3;
const CHUNK = 8 << 20;

interface TusTiming {
  ms: number;
  /** The last PATCH (8 MiB, then the completion: hash, fsync, index row). */
  lastPatchMs: number;
  /** A median PATCH before it (8 MiB only). */
  patchMs: number;
}

function tusUpload(port: number, file: string): Promise<TusTiming> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let sent = started;
    const patches: number[] = [];
    const size = fs.statSync(file).size;
    const upload = new tus.Upload(fs.createReadStream(file), {
      endpoint: `http://127.0.0.1:${port}/api/v1/can/0/uploads`,
      chunkSize: CHUNK,
      uploadSize: size,
      metadata: { filename: 'large.bin' },
      onBeforeRequest: () => {
        sent = performance.now();
      },
      onAfterResponse: (req) => {
        if (req.getMethod() === 'PATCH') patches.push(performance.now() - sent);
      },
      onError: reject,
      onSuccess: () => {
        resolve({
          ms: performance.now() - started,
          lastPatchMs: patches.at(-1) ?? 0,
          patchMs: median(patches.slice(0, -1)),
        });
      },
    });
    upload.start();
  });
}

const toMBs = (ms: number) => GIB / (1 << 20) / (ms / 1000);
const pct = (x: number) => `${x.toFixed(2)}x`;

async function main(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-bench-tus-'));
  const largeFile = path.join(work, 'large-1GiB.bin');
  let database: TestDatabase | undefined;
  let service: Proc | undefined;
  try {
    process.stdout.write('preparing a 1 GiB file in /tmp …\n');
    makeLargeFile(largeFile);
    if (process.env.TEST_DATABASE_URL) database = await createTestDatabase('asset_bench_tus');
    const databaseUrl = database?.target.kind === 'postgres' ? database.target.url : undefined;
    service = await startService(path.join(work, 'service'), databaseUrl);
    const pid = service.child.pid!;
    const rss = new RssSampler(pid);
    const pairs: {
      plain: number;
      tus: number;
      lastPatchMs: number;
      patchMs: number;
      plainCpu: number;
      tusCpu: number;
    }[] = [];
    let rssGrowth = 0;
    for (let pair = 0; pair < PAIRS; pair++) {
      await settle(pid);
      let cpu = cpuSeconds(pid);
      const plain = toMBs(await uploadLargeToService(service.port, largeFile));
      const plainCpu = cpuSeconds(pid) - cpu;
      await settle(pid);
      const before = rss.start();
      cpu = cpuSeconds(pid);
      const timing = await tusUpload(service.port, largeFile);
      const tusCpu = cpuSeconds(pid) - cpu;
      rssGrowth = Math.max(rssGrowth, rss.stop() - before);
      pairs.push({ plain, tus: toMBs(timing.ms), ...timing, plainCpu, tusCpu });
    }
    const ratios = pairs.map((p) => p.tus / p.plain);
    const ratio = median(ratios);
    const mid = (pick: (p: (typeof pairs)[number]) => number) => median(pairs.map(pick));
    const lines = [
      '',
      `asset-store tus benchmark (index: ${databaseUrl ? 'PostgreSQL server' : 'embedded PGlite'}; ${os.cpus().length} cores)`,
      '',
      `1 GiB, median of ${PAIRS} pairs      tus (8 MiB)  POST /ingest ratio   target`,
      `  throughput MB/s             ${mid((p) => p.tus)
        .toFixed(0)
        .padEnd(12)} ${mid((p) => p.plain)
        .toFixed(0)
        .padEnd(12)} ${pct(ratio).padEnd(7)} >= 0.70x  ${ratio >= 0.7 ? 'ok' : 'MISSED'}`,
      `  server CPU seconds          ${mid((p) => p.tusCpu)
        .toFixed(2)
        .padEnd(12)} ${mid((p) => p.plainCpu).toFixed(2)}`,
      `  tus PATCH ms: last (with the completion) ${mid((p) => p.lastPatchMs).toFixed(0)}, others ${mid((p) => p.patchMs).toFixed(0)}`,
      `  pairs: MB/s tus             ${pairs.map((p) => p.tus.toFixed(0)).join(' / ')}`,
      `         MB/s POST /ingest    ${pairs.map((p) => p.plain.toFixed(0)).join(' / ')}`,
      `         ratio                ${ratios.map(pct).join(' / ')}`,
      `  service RSS growth MB (tus) ${(rssGrowth / (1 << 20)).toFixed(1).padEnd(12)} ${''.padEnd(12)} ${''.padEnd(7)} < 64      ${rssGrowth < 64 << 20 ? 'ok' : 'MISSED'}`,
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
