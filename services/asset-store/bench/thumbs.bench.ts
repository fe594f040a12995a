import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase } from '@svc/testing';
import autocannon from 'autocannon';
import sharp from 'sharp';
import { request } from 'undici';
import { createApp } from '../src/app.js';
import { createAssetRuntime } from '../src/runtime/asset-runtime.js';
import { hashBuffer } from '../src/storage/content-hash.js';
import { configSchema } from '../src/config.js';
import { physicalFilename } from '../src/storage/layout.js';
import { sharpRenderer, type ThumbnailRenderer } from '../src/thumbnails/thumbnail.renderer.js';

/**
 * `pnpm --filter asset-store bench:thumbs`: a 6000×4000 noise JPEG (so it does not
 * compress to nothing) stored as an asset; cold thumbnail latency over HTTP against a bare
 * sharp resize of the same file in the same run (target ≤ 1.15×); 100 concurrent identical
 * misses (target: exactly 1 resize); cached thumbnail requests per second. Uses
 * TEST_DATABASE_URL when set (a fresh database, dropped afterwards), else embedded PGlite.
 */
const COLD_RUNS = Number(process.env.BENCH_RUNS ?? 20);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-thumbs-'));
  const testDb = await createTestDatabase('bench_thumbs');
  let renders = 0;
  const counting: ThumbnailRenderer = {
    render: (f, box) => {
      renders++;
      return sharpRenderer.render(f, box);
    },
  };
  // The service's own composition root, on the bench's database, with a counting renderer.
  const runtime = await createAssetRuntime(
    Object.freeze(configSchema.parse({ storage_root: root, log_level: 'silent' })),
    { target: testDb.target, version: 'bench', thumbnailRenderer: counting },
  );
  const index = runtime.resources.index;
  try {
    let started = performance.now();
    const photo = await sharp({
      create: {
        width: 6000,
        height: 4000,
        channels: 3,
        background: '#808080',
        noise: { type: 'gaussian', mean: 128, sigma: 40 },
      },
    })
      .jpeg({ quality: 90 })
      .toBuffer();
    const timestamp = Date.now();
    const hash = hashBuffer(photo, timestamp);
    const name = physicalFilename({ timestamp, hash, tags: [], ext: 'jpg' });
    const file = path.join(root, name);
    fs.writeFileSync(file, photo);
    await index.db
      .insertInto('asset')
      .values({
        hash,
        timestamp,
        mime_type: 'image/jpeg',
        tags: [],
        path: name,
        size: photo.length,
      })
      .execute();
    console.log(
      `source: 6000×4000 JPEG, ${(photo.length / 1e6).toFixed(1)} MB, made in ${Math.round(performance.now() - started)} ms`,
    );

    const app = createApp(runtime);
    const server = http.createServer(app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const url = (w: number, h: number) =>
      `http://127.0.0.1:${port}/api/v1/can/0/asset/${hash}/thumb/${w}/${h}`;

    // Cold: every box is new, so every request resizes. Interleaved with the baseline so
    // both see the same machine load.
    const service: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < COLD_RUNS; i++) {
      const w = 320;
      const h = 240 + i;
      let t0 = performance.now();
      const res = await request(url(w, h));
      await res.body.arrayBuffer();
      if (res.statusCode !== 200) throw new Error(`thumbnail answered ${res.statusCode}`);
      service.push(performance.now() - t0);
      t0 = performance.now();
      await sharp(file)
        .resize(w, h, { fit: 'inside', withoutEnlargement: true })
        .jpeg({ quality: 80 })
        .toBuffer();
      bare.push(performance.now() - t0);
    }
    const ratio = median(service) / median(bare);

    renders = 0;
    const burst = await Promise.all(
      Array.from({ length: 100 }, async () => {
        const res = await request(url(200, 200));
        await res.body.arrayBuffer();
        return res.statusCode;
      }),
    );
    const allOk = burst.every((s) => s === 200);
    const burstRenders = renders;

    started = performance.now();
    const cached = await autocannon({ url: url(200, 200), connections: 16, duration: 5 });
    server.close();

    console.log('\nbench:thumbs');
    console.log(
      `cold thumbnail 320×~240 (median of ${COLD_RUNS}): service ${median(service).toFixed(1)} ms vs bare sharp resize ${median(bare).toFixed(1)} ms = ${ratio.toFixed(2)}× (target ≤ 1.15×) ${ratio <= 1.15 ? 'ok' : 'MISSED'}`,
    );
    console.log(
      `100 concurrent identical misses: ${burstRenders} resize(s), all 200: ${allOk} (target: exactly 1) ${burstRenders === 1 && allOk ? 'ok' : 'MISSED'}`,
    );
    console.log(
      `cached thumbnail: ${Math.round(cached.requests.average)} req/s average, p99 ${cached.latency.p99} ms (16 connections, 5 s)`,
    );
  } finally {
    await runtime.close();
    await testDb.drop();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

await main();
