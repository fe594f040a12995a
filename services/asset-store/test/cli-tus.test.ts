import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { request as httpRequest } from 'undici';
import { listen } from './asset-helpers.js';
import { jsonLines, runCli, startCli, writeTree } from './cli-runner.js';
import { createTestApp, type TestApp } from './test-app.js';

interface Line {
  path: string;
  status: string;
  hash?: string;
  timestamp?: number;
  error?: string;
}

const MIB = 1 << 20;
const sha256 = (content: Buffer) => createHash('sha256').update(content).digest('hex');

describe('asset-store upload of files over 8 MiB (tus)', () => {
  let t: TestApp;
  let server: Awaited<ReturnType<typeof listen>>;
  let env: NodeJS.ProcessEnv;
  let work: string;

  beforeAll(async () => {
    t = await createTestApp('cli_tus');
    server = await listen(t.app);
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-cli-tus-'));
    env = {
      ASSET_STORE_URL: `http://127.0.0.1:${server.port}`,
      ASSET_STORE_STATE_FILE: path.join(work, 'state', 'uploads.json'),
    };
  });
  afterAll(async () => {
    await server.stop();
    await t.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  const rowsWithContent = (content: Buffer) =>
    t.index.db
      .selectFrom('asset')
      .selectAll()
      .where('content_sha256', '=', sha256(content))
      .execute();
  const remembered = (): Record<string, { uploadUrl: string }> => {
    const file = env.ASSET_STORE_STATE_FILE!;
    return fs.existsSync(file)
      ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, { uploadUrl: string }>)
      : {};
  };

  it('sends a large file over tus, stores it once with its metadata, and forgets the upload', async () => {
    const content = randomBytes(9 * MIB);
    const dir = path.join(work, 'large');
    writeTree(dir, { 'video.bin': content });
    const run = await runCli(['upload', dir, '--json', '--tags', 'big'], { env });
    expect(run.code).toBe(0);
    const [line, ...more] = jsonLines<Line>(run.out);
    expect(more).toEqual([]);
    expect(line).toEqual({
      path: path.join(dir, 'video.bin'),
      status: 'stored',
      hash: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
      timestamp: expect.any(Number) as unknown,
    });
    const rows = await rowsWithContent(content);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      hash: line!.hash,
      timestamp: line!.timestamp,
      size: content.length,
      tags: ['big'],
      human_filename: 'video.bin',
      human_path: 'large',
    });
    expect(fs.readFileSync(path.join(t.storageRoot, rows[0]!.path)).equals(content)).toBe(true);
    expect(remembered()).toEqual({});

    // A second run finds the content and skips it.
    const again = await runCli(['upload', dir, '--json'], { env });
    expect(jsonLines(again.out)).toEqual([{ ...line, status: 'skipped' }]);
  }, 60_000);

  it('resumes an upload stopped midway on the next run, from where it stopped, and stores the file once', async () => {
    const content = randomBytes(96 * MIB);
    const dir = path.join(work, 'resume');
    writeTree(dir, { 'huge.bin': content });
    const running = startCli(['upload', dir, '--json'], { env });
    // Stop as soon as the upload exists on the server (its URL is remembered).
    const until = Date.now() + 30_000;
    while (Object.keys(remembered()).length === 0 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 10));
    }
    running.child.kill('SIGINT');
    const first = await running.done;
    expect(first.code).toBe(130);
    expect(first.out).toBe('');
    expect(first.err).toMatch(
      /^asset-store: interrupted: 0 stored, 0 skipped, 0 failed, 1 not done/,
    );
    const [entry, ...others] = Object.values(remembered());
    expect(others).toEqual([]);
    const head = await httpRequest(entry!.uploadUrl, {
      method: 'HEAD',
      headers: { 'tus-resumable': '1.0.0' },
    });
    const offset = Number(head.headers['upload-offset']);
    expect(offset).toBeLessThan(content.length);
    expect(await rowsWithContent(content)).toEqual([]);

    const second = await runCli(['upload', dir, '--json'], { env });
    expect(second.code).toBe(0);
    const [line] = jsonLines<Line>(second.out);
    expect(line).toMatchObject({ status: 'stored' });
    expect(await rowsWithContent(content)).toHaveLength(1);
    // The same upload was continued: it now names the asset it became.
    const done = await httpRequest(entry!.uploadUrl, {
      method: 'HEAD',
      headers: { 'tus-resumable': '1.0.0' },
    });
    expect(done.headers['asset-hash']).toBe(line!.hash);
    expect(remembered()).toEqual({});
  }, 120_000);
});
