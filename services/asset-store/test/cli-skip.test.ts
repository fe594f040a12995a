import fs from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { listen } from './asset-helpers.js';
import { jsonLines, runCli, startCli, writeTree } from './cli-runner.js';
import { createTestApp, type TestApp } from './test-app.js';

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let env: NodeJS.ProcessEnv;
let work: string;
/** Every request the store saw, as `METHOD /path` (no query), in arrival order. */
let seen: string[] = [];
let inFlight = 0;
/** Answer `POST /search/sha256` with 404, as a store from before it would. */
let withoutBatchLookup = false;

beforeAll(async () => {
  t = await createTestApp('cli_skip');
  // The app behind a thin wrapper that counts requests; everything else is the real store.
  server = await listen((req: http.IncomingMessage, res: http.ServerResponse) => {
    const route = `${req.method} ${new URL(req.url!, 'http://x').pathname.replace('/api/v1/can/0', '')}`;
    seen.push(route);
    inFlight++;
    res.once('close', () => inFlight--);
    if (withoutBatchLookup && route === 'POST /search/sha256') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'error', error: 'not found' }));
      return;
    }
    t.app(req, res);
  });
  env = { ASSET_STORE_URL: `http://127.0.0.1:${server.port}` };
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-cli-skip-'));
});
afterAll(async () => {
  await server.stop();
  await t.close();
  fs.rmSync(work, { recursive: true, force: true });
});
beforeEach(() => {
  seen = [];
  withoutBatchLookup = false;
});

interface Line {
  path: string;
  status: string;
  hash?: string;
  timestamp?: number;
  same_as?: string;
  error?: string;
}

/** A folder of `n` distinct small files. */
function folder(name: string, n: number): string {
  const dir = path.join(work, name);
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) files[`f${String(i).padStart(4, '0')}.txt`] = `${name} file ${i}`;
  writeTree(dir, files);
  return dir;
}

/** Rows and distinct contents the store holds for a folder. */
async function heldIn(folderName: string) {
  const row = await t.index.db
    .selectFrom('asset')
    .select((eb) => [
      eb.fn.countAll<string>().as('rows'),
      eb.fn.count<string>('content_sha256').distinct().as('contents'),
    ])
    .where('human_path', '=', folderName)
    .executeTakeFirstOrThrow();
  return { rows: Number(row.rows), contents: Number(row.contents) };
}

const count = (routes: string[]) =>
  routes.reduce<Record<string, number>>((acc, r) => ({ ...acc, [r]: (acc[r] ?? 0) + 1 }), {});

describe('asset-store upload: the skip check', () => {
  it('skips every file on a second run, exit 0, asking the store once per batch rather than once per file', async () => {
    const dir = folder('again', 400);
    const first = await runCli(['upload', dir, '--json', '--concurrency', '8'], { env });
    expect(first.code).toBe(0);
    const stored = jsonLines<Line>(first.out);
    expect(stored.filter((l) => l.status === 'stored')).toHaveLength(400);
    // Checked in batches of 64, 256 and the 80 left, each before its files were sent.
    expect(count(seen)).toEqual({
      'GET /list': 1,
      'POST /search/sha256': 3,
      'POST /ingest': 400,
    });

    seen = [];
    const second = await runCli(['upload', dir, '--json', '--concurrency', '8'], { env });
    expect(second.code).toBe(0);
    const byPath = new Map(stored.map((l) => [l.path, l]));
    const skipped = jsonLines<Line>(second.out);
    expect(skipped).toHaveLength(400);
    for (const line of skipped) {
      const before = byPath.get(line.path)!;
      expect(line).toEqual({
        path: before.path,
        status: 'skipped',
        hash: before.hash,
        timestamp: before.timestamp,
      });
    }
    expect(count(seen)).toEqual({ 'GET /list': 1, 'POST /search/sha256': 3 });
    expect(second.err).toMatch(/^asset-store: 0 stored, 400 skipped, 0 failed \(/);
    expect(await heldIn('again')).toEqual({ rows: 400, contents: 400 });
  });

  it('asks per file, and still skips, when the store has no batch lookup', async () => {
    const dir = folder('older-store', 5);
    expect((await runCli(['upload', dir, '--json'], { env })).code).toBe(0);
    withoutBatchLookup = true;
    seen = [];
    const second = await runCli(['upload', dir, '--json'], { env });
    expect(second.code).toBe(0);
    expect(jsonLines<Line>(second.out).map((l) => l.status)).toEqual(Array(5).fill('skipped'));
    expect(count(seen)).toEqual({ 'GET /list': 1, 'POST /search/sha256': 1, 'GET /search': 5 });
    expect(await heldIn('older-store')).toEqual({ rows: 5, contents: 5 });
  });

  it('stores every file exactly once when a run killed midway (SIGKILL) is run again', async () => {
    const dir = folder('killed', 300);
    const running = startCli(['upload', dir, '--json', '--concurrency', '4'], { env });
    const until = Date.now() + 20_000;
    while (jsonLines(running.out()).length < 30 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 10));
    }
    running.child.kill('SIGKILL');
    const first = await running.done;
    expect(first.code).toBeNull();
    const reported = jsonLines<Line>(first.out);
    expect(reported.length).toBeGreaterThanOrEqual(30);
    expect(reported.length).toBeLessThan(300);
    // Ingests the dead process had fully sent still finish on the store; the rerun comes
    // after them, as a user's would.
    while (inFlight > 0) await new Promise((r) => setTimeout(r, 10));

    const second = await runCli(['upload', dir, '--json'], { env });
    expect(second.code).toBe(0);
    const lines = jsonLines<Line>(second.out);
    expect(lines).toHaveLength(300);
    expect(lines.every((l) => l.status === 'stored' || l.status === 'skipped')).toBe(true);
    // Whatever the first run reported stored is skipped, naming the same asset.
    const again = new Map(lines.map((l) => [l.path, l]));
    for (const line of reported) {
      expect(again.get(line.path)).toEqual({ ...line, status: 'skipped' });
    }
    expect(await heldIn('killed')).toEqual({ rows: 300, contents: 300 });
  }, 60_000);
});

describe('asset-store upload: the same content twice in one run', () => {
  it('stores it once and skips the later files, naming the first (across batches too), unless --force', async () => {
    const dir = path.join(work, 'copies');
    const files: Record<string, string> = {
      'a.png': 'the same picture',
      'b.png': 'the same picture',
      'c.png': 'another picture',
      // Sorted after 66 fillers: the 70th file, in the second batch of the check.
      'z.png': 'the same picture',
    };
    for (let i = 0; i < 66; i++) files[`f${String(i).padStart(4, '0')}.txt`] = `filler ${i}`;
    writeTree(dir, files);
    const run = await runCli(['upload', dir, '--json', '--concurrency', '8'], { env });
    expect(run.code).toBe(0);
    const lines = new Map(jsonLines<Line>(run.out).map((l) => [path.basename(l.path), l]));
    expect(lines.size).toBe(70);
    const first = lines.get('a.png')!;
    expect(first).toEqual({
      path: path.join(dir, 'a.png'),
      status: 'stored',
      hash: expect.any(String) as string,
      timestamp: expect.any(Number) as number,
    });
    for (const name of ['b.png', 'z.png']) {
      expect(lines.get(name)).toEqual({
        path: path.join(dir, name),
        status: 'skipped',
        hash: first.hash,
        timestamp: first.timestamp,
        same_as: path.join(dir, 'a.png'),
      });
    }
    expect(lines.get('c.png')).toMatchObject({ status: 'stored' });
    expect(run.err).toMatch(/^asset-store: 68 stored, 2 skipped, 0 failed \(/);
    expect(await heldIn('copies')).toEqual({ rows: 68, contents: 68 });
    const rows = await t.index.db
      .selectFrom('asset')
      .select(['hash', 'human_filename'])
      .where('human_path', '=', 'copies')
      .where('human_filename', 'like', '%.png')
      .orderBy('human_filename')
      .execute();
    expect(rows).toEqual([
      { hash: first.hash, human_filename: 'a.png' },
      { hash: lines.get('c.png')!.hash, human_filename: 'c.png' },
    ]);
  });

  it('says so in a line on stderr without --json', async () => {
    const dir = path.join(work, 'copies-said');
    writeTree(dir, { 'a.txt': 'twice said', 'b.txt': 'twice said' });
    const run = await runCli(['upload', dir], { env });
    expect(run.code).toBe(0);
    expect(run.out).toBe('');
    expect(run.err).toMatch(
      new RegExp(
        `^skipped ${path.join(dir, 'b.txt')}: same content as ${path.join(dir, 'a.txt')}\n` +
          'asset-store: 1 stored, 1 skipped, 0 failed \\(',
      ),
    );
    expect(await heldIn('copies-said')).toEqual({ rows: 1, contents: 1 });
  });

  it('stores each copy with --force, asking the store nothing', async () => {
    const dir = path.join(work, 'copies-forced');
    writeTree(dir, { 'a.txt': 'kept twice', 'b.txt': 'kept twice' });
    const run = await runCli(['upload', dir, '--json', '--force'], { env });
    expect(run.code).toBe(0);
    expect(jsonLines<Line>(run.out).map((l) => l.status)).toEqual(['stored', 'stored']);
    expect(count(seen)).toEqual({ 'GET /list': 1, 'POST /ingest': 2 });
    expect(await heldIn('copies-forced')).toEqual({ rows: 2, contents: 1 });
  });
});
