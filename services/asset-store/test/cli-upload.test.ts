import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { listen } from './asset-helpers.js';
import { jsonLines, runCli, startCli, writeTree, type CliRun } from './cli-runner.js';
import { createTestApp, type TestApp } from './test-app.js';

const TOKEN = 'cli-data-token';
let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let env: NodeJS.ProcessEnv;
let work: string;

beforeAll(async () => {
  t = await createTestApp('cli_upload', { api_token: TOKEN, max_upload_bytes: 65536 });
  server = await listen(t.app);
  env = { ASSET_STORE_URL: `http://127.0.0.1:${server.port}`, ASSET_STORE_TOKEN: TOKEN };
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-cli-upload-'));
});
afterAll(async () => {
  await server.stop();
  await t.close();
  fs.rmSync(work, { recursive: true, force: true });
});

interface Line {
  path: string;
  status: string;
  hash?: string;
  timestamp?: number;
  error?: string;
}

const sha256 = (content: string | Buffer) => createHash('sha256').update(content).digest('hex');
const byPath = (a: Line, b: Line) => (a.path < b.path ? -1 : 1);

/** A fresh folder under the test's work folder. */
function folder(name: string, files: Record<string, string | Buffer>): string {
  const dir = path.join(work, name);
  writeTree(dir, files);
  return dir;
}

/** Every index row holding this content. */
function rowsWithContent(content: string | Buffer) {
  return t.index.db
    .selectFrom('asset')
    .selectAll()
    .where('content_sha256', '=', sha256(content))
    .execute();
}

/** Regular files left under `.tmp/` (uploads in flight or abandoned). */
function stagedFiles(): string[] {
  const tmp = path.join(t.storageRoot, '.tmp');
  if (!fs.existsSync(tmp)) return [];
  return (
    fs
      .readdirSync(tmp, { recursive: true, withFileTypes: true })
      // The running service's own lock file is not an upload.
      .filter((e) => e.isFile() && e.name !== 'service.lock')
      .map((e) => e.name)
  );
}

describe('asset-store upload', () => {
  it('stores every file of a folder once, with the folder path and the file name, one --json line each', async () => {
    const files = {
      'a.txt': 'alpha',
      'b.bin': randomBytes(3000),
      'sub/c.txt': 'gamma',
      'sub/say "hi".txt': 'quoted name',
    };
    const dir = folder('trip', files);
    const run = await runCli(
      ['upload', dir, '--json', '--tags', 'trip,cli', '--application', 'cli-test', '--user', 'ann'],
      { env },
    );
    expect(run.code).toBe(0);
    const lines = jsonLines<Line>(run.out).sort(byPath);
    expect(lines).toEqual(
      ['a.txt', 'b.bin', 'sub/c.txt', 'sub/say "hi".txt'].map((name) => ({
        path: path.join(dir, name),
        status: 'stored',
        hash: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
        timestamp: expect.any(Number) as unknown,
      })),
    );
    expect(run.err).toMatch(
      /^asset-store: 4 stored, 0 skipped, 0 failed \(3\.0 KiB in [\d.]+ s\)\n$/,
    );
    for (const [name, content] of Object.entries(files)) {
      const line = lines.find((l) => l.path === path.join(dir, name))!;
      const [row, ...more] = await rowsWithContent(content);
      expect(more).toEqual([]);
      expect(row).toMatchObject({
        hash: line.hash,
        timestamp: line.timestamp,
        tags: ['trip', 'cli'],
        application: 'cli-test',
        user: 'ann',
        human_filename: path.basename(name),
        human_path: name.includes('/') ? 'trip/sub' : 'trip',
      });
      expect(fs.readFileSync(path.join(t.storageRoot, row!.path))).toEqual(Buffer.from(content));
    }
  });

  it('skips, on a second run, every file whose content the store holds, naming the asset that holds it', async () => {
    const dir = folder('again', { 'one.txt': 'same one', 'two.txt': 'same two' });
    const first = await runCli(['upload', dir, '--json'], { env });
    expect(first.code).toBe(0);
    // A copy under another name is the same content: skipped too.
    fs.copyFileSync(path.join(dir, 'one.txt'), path.join(dir, 'copy-of-one.txt'));
    const second = await runCli(['upload', dir, '--json'], { env });
    expect(second.code).toBe(0);
    const stored = jsonLines<Line>(first.out);
    const one = stored.find((l) => l.path.endsWith('one.txt'))!;
    expect(jsonLines<Line>(second.out).sort(byPath)).toEqual(
      [
        {
          path: path.join(dir, 'copy-of-one.txt'),
          status: 'skipped',
          hash: one.hash,
          timestamp: one.timestamp,
        },
        ...stored.map((l) => ({ ...l, status: 'skipped' })),
      ].sort(byPath),
    );
    expect(await rowsWithContent('same one')).toHaveLength(1);
    expect(await rowsWithContent('same two')).toHaveLength(1);

    const forced = await runCli(['upload', path.join(dir, 'two.txt'), '--json', '--force'], {
      env,
    });
    expect(forced.code).toBe(0);
    expect(jsonLines<Line>(forced.out)).toEqual([
      expect.objectContaining({ status: 'stored' }) as unknown,
    ]);
    expect(await rowsWithContent('same two')).toHaveLength(2);
  });

  it('reports a file the store refuses as failed with its reason, stores the others and exits 1', async () => {
    const big = randomBytes(70_000);
    const dir = folder('mixed', { 'ok.txt': 'fits', 'too-big.bin': big });
    const run = await runCli(['upload', dir], { env });
    expect(run.code).toBe(1);
    expect(run.out).toBe('');
    expect(run.err).toBe(
      `failed ${path.join(dir, 'too-big.bin')}: 413: file too large: the limit is 65536 bytes\n` +
        run.err.slice(run.err.indexOf('asset-store:')),
    );
    expect(run.err).toMatch(/asset-store: 1 stored, 0 skipped, 1 failed/);
    expect(await rowsWithContent('fits')).toHaveLength(1);
    expect(await rowsWithContent(big)).toEqual([]);
    expect(stagedFiles()).toEqual([]);
  });

  it('stops cleanly on Ctrl-C: exit 130, every reported file stored once, nothing half-made; a rerun stores the rest once', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++)
      files[`f${String(i).padStart(3, '0')}.txt`] = `ctrl-c file ${i} ${'x'.repeat(4000)}`;
    const dir = folder('interrupted', files);
    const running = startCli(['upload', dir, '--json', '--concurrency', '2'], { env });
    const until = Date.now() + 20_000;
    while (jsonLines(running.out()).length < 20 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 20));
    }
    running.child.kill('SIGINT');
    const first = await running.done;
    expect(first.code).toBe(130);
    const firstLines = jsonLines<Line>(first.out);
    expect(firstLines.length).toBeGreaterThanOrEqual(20);
    expect(firstLines.length).toBeLessThan(300);
    expect(firstLines.every((l) => l.status === 'stored')).toBe(true);
    expect(first.err).toMatch(
      new RegExp(
        `^asset-store: interrupted: ${firstLines.length} stored, 0 skipped, 0 failed, ${300 - firstLines.length} not done`,
      ),
    );
    // What the store holds from this folder is exactly what was reported stored.
    const held = await t.index.db
      .selectFrom('asset')
      .select(['hash'])
      .where('human_path', '=', 'interrupted')
      .execute();
    expect(held.map((r) => r.hash).sort()).toEqual(firstLines.map((l) => l.hash).sort());
    expect(stagedFiles()).toEqual([]);

    const second: CliRun = await runCli(['upload', dir, '--json'], { env });
    expect(second.code).toBe(0);
    const secondLines = jsonLines<Line>(second.out);
    expect(secondLines).toHaveLength(300);
    expect(
      secondLines
        .filter((l) => l.status === 'skipped')
        .map((l) => l.path)
        .sort(),
    ).toEqual(firstLines.map((l) => l.path).sort());
    expect(secondLines.filter((l) => l.status === 'stored')).toHaveLength(300 - firstLines.length);
    const counts = await t.index.db
      .selectFrom('asset')
      .select((eb) => [
        eb.fn.countAll<string>().as('rows'),
        eb.fn.count<string>('content_sha256').distinct().as('contents'),
      ])
      .where('human_path', '=', 'interrupted')
      .executeTakeFirstOrThrow();
    expect({ rows: Number(counts.rows), contents: Number(counts.contents) }).toEqual({
      rows: 300,
      contents: 300,
    });
  }, 60_000);
});

describe('asset-store CLI exit codes and credentials', () => {
  it('refuses a command line it cannot run with exit 2 and says why', async () => {
    const cases: [string[], RegExp][] = [
      [['bogus'], /unknown command 'bogus'/],
      [['upload'], /missing required argument 'path'/],
      [['upload', work, '--concurrency', '0'], /--concurrency: expected an integer from 1 to 64/],
      [['upload', path.join(work, 'no-such')], /no such file or folder: \/.*\/no-such\n/],
      [['get', 'xyz'], /xyz: expected a hash \(64 hex characters\) or a prefix of 8 or more/],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(args, { env });
      expect([args, run.code]).toEqual([args, 2]);
      expect(run.err).toMatch(message);
    }
  });

  it('without the API token the store answers 401 once and nothing is uploaded (exit 1); --token is sent as the bearer token', async () => {
    const dir = folder('token', { 'secret.txt': 'needs a token' });
    const refused = await runCli(['upload', dir, '--json'], {
      env: { ASSET_STORE_URL: env.ASSET_STORE_URL },
    });
    expect(refused).toEqual({
      code: 1,
      out: '',
      err: `asset-store: ${env.ASSET_STORE_URL} answered 401: missing or invalid API token\n`,
    });
    expect(await rowsWithContent('needs a token')).toEqual([]);
    const allowed = await runCli(['upload', dir, '--json', '--token', TOKEN], {
      env: { ASSET_STORE_URL: env.ASSET_STORE_URL },
    });
    expect(allowed.code).toBe(0);
    expect(await rowsWithContent('needs a token')).toHaveLength(1);
  });

  it('says so and exits 1 when the store cannot be reached', async () => {
    const run = await runCli(['ls', '--url', 'http://127.0.0.1:1'], { env: {} });
    expect(run.code).toBe(1);
    expect(run.err).toMatch(
      /^asset-store: cannot reach the store at http:\/\/127\.0\.0\.1:1 \(connect ECONNREFUSED 127\.0\.0\.1:1\)\n$/,
    );
  });
});
