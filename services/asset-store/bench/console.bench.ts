import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { createTestDatabase } from '@svc/testing';
import { findChromium } from '@svc/testing/browser';
import pg from 'pg';
import { chromium } from 'playwright-core';
import sharp from 'sharp';
import { SCHEMA } from '../src/db/database.js';
import { envNumber, SERVICE_DIR, startService, stopProc } from './bench-kit.js';

/**
 * bench:console — the console's first screen over a large index, in Chromium, against the
 * built service (`dist/src/start.cjs`, the console from `web/dist`) on real PostgreSQL.
 * Seeds CONSOLE_BENCH_ROWS (100,000) rows with one INSERT … SELECT generate_series, then
 * CONSOLE_BENCH_IMAGES (48) real JPEGs through the API (the newest: the first screen shows
 * only them). Each load is a fresh browser context (empty HTTP cache): navigation start →
 * the first grid cell drawn, and → every cell in view showing its thumbnail (the page's
 * own marks, `performance.now()`); p50 and p95 over CONSOLE_BENCH_LOADS (10) loads after
 * one cold load (the service makes each thumbnail once). Also the console's JavaScript,
 * gzipped. Targets (issue 42): first screen ≤ 1 s; JavaScript ≤ 200 KB gzipped.
 */

const ROWS = envNumber('CONSOLE_BENCH_ROWS', 100_000);
const IMAGES = envNumber('CONSOLE_BENCH_IMAGES', 48);
const LOADS = envNumber('CONSOLE_BENCH_LOADS', 10);
const FIRST_SCREEN_TARGET_MS = 1000;
const JS_TARGET_BYTES = 200 * 1024;

/** The nearest-rank percentile of some figures. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function ingestImage(base: string, i: number): Promise<void> {
  const image = await sharp({
    create: { width: 640, height: 480, channels: 3, background: { r: i * 5, g: 120, b: 200 } },
  })
    .jpeg()
    .toBuffer();
  const form = new FormData();
  form.set('human_file_name', `photo-${i}.jpg`);
  form.set('file', new Blob([image], { type: 'image/jpeg' }), `photo-${i}.jpg`);
  const res = await fetch(`${base}/api/v1/can/0/ingest`, { method: 'POST', body: form });
  if (res.status !== 200) throw new Error(`ingest: ${res.status} ${await res.text()}`);
}

/** Gzipped size of each script the console serves (what a load of it transfers at most). */
function scriptSizes(): Record<string, { bytes: number; gzipped: number }> {
  const dist = path.join(SERVICE_DIR, 'web', 'dist');
  const out: Record<string, { bytes: number; gzipped: number }> = {};
  for (const file of fs.readdirSync(dist).filter((f) => f.endsWith('.js'))) {
    const body = fs.readFileSync(path.join(dist, file));
    out[file] = { bytes: body.length, gzipped: gzipSync(body, { level: 9 }).length };
  }
  return out;
}

async function main(): Promise<void> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error('bench:console needs Chromium (apt-get install chromium)');
  if (!process.env.TEST_DATABASE_URL) throw new Error('bench:console needs TEST_DATABASE_URL');
  const db = await createTestDatabase('bench_console');
  if (db.target.kind !== 'postgres') throw new Error('bench:console runs on PostgreSQL');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-store-bench-console-'));
  const proc = await startService(root, db.target.url);
  const base = `http://127.0.0.1:${proc.port}`;
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
  try {
    const seeded = performance.now();
    const client = new pg.Client({ connectionString: db.target.url });
    await client.connect();
    try {
      await client.query(`set search_path to ${SCHEMA}`);
      // Rows straight into the index (the service's migrations made the table): no files,
      // which the first screen never asks for (it shows the newest, the real images).
      await client.query(
        `insert into asset (hash, timestamp, mime_type, application, "user", tags, path, size)
         select encode(sha256(int8send(1600000000000::bigint + i * 1000)
                  || convert_to(lpad(i::text, 16, '0'), 'UTF8')), 'hex'),
                1600000000000::bigint + i * 1000,
                'image/jpeg', 'app' || (i % 20), 'user' || (i % 100), '{}',
                'f/' || i || '.jpg', 16
         from generate_series(1, $1::bigint) as i`,
        [ROWS],
      );
      await client.query('analyze asset');
    } finally {
      await client.end();
    }
    const seedMs = performance.now() - seeded;
    for (let i = 0; i < IMAGES; i++) await ingestImage(base, i);

    const load = async (): Promise<{ firstCell: number; firstScreen: number }> => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await page.goto(`${base}/console/`);
      await page.locator('body[data-first-screen-ms]').waitFor({ timeout: 60_000 });
      const [firstCell, firstScreen, status] = await page.evaluate<[number, number, string]>(
        `[Number(document.body.dataset.firstCellMs), Number(document.body.dataset.firstScreenMs),
          document.getElementById('status').textContent]`,
      );
      if (status !== `${(ROWS + IMAGES).toLocaleString('en')} assets`) {
        throw new Error(`the console says "${status}"`);
      }
      await context.close();
      return { firstCell, firstScreen };
    };
    const cold = await load();
    const runs: { firstCell: number; firstScreen: number }[] = [];
    for (let i = 0; i < LOADS; i++) runs.push(await load());
    const cells = runs.map((r) => r.firstCell);
    const screens = runs.map((r) => r.firstScreen);
    const scripts = scriptSizes();
    const appGzipped = scripts['app.js']?.gzipped ?? 0;
    const allGzipped = Object.values(scripts).reduce((sum, s) => sum + s.gzipped, 0);
    const result = {
      bench: 'console',
      rows: ROWS + IMAGES,
      seed_ms: Math.round(seedMs),
      loads: LOADS,
      cold_first_screen_ms: cold.firstScreen,
      first_cell_ms: { p50: percentile(cells, 50), p95: percentile(cells, 95) },
      first_screen_ms: { p50: percentile(screens, 50), p95: percentile(screens, 95) },
      first_screen_target_ms: FIRST_SCREEN_TARGET_MS,
      js: scripts,
      js_gzipped_first_screen: appGzipped,
      js_gzipped_all: allGzipped,
      js_target_gzipped: JS_TARGET_BYTES,
      met:
        percentile(screens, 95) <= FIRST_SCREEN_TARGET_MS && allGzipped <= JS_TARGET_BYTES,
      load_average: os.loadavg().map((l) => Math.round(l * 10) / 10),
      cores: os.cpus().length,
    };
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await browser.close();
    await stopProc(proc);
    await db.drop();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

await main();
