import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import request from 'supertest';
import { humanSize } from '../src/cli/asset-table.js';
import { ingestFile, listen, type Ingested } from './asset-helpers.js';
import { jsonLines, runCli } from './cli-runner.js';
import { createTestApp, type TestApp } from './test-app.js';

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let env: NodeJS.ProcessEnv;
let work: string;
let photo: Ingested;
let notes: Ingested;
let data: Ingested;
const content = randomBytes(200_000);

beforeAll(async () => {
  t = await createTestApp('cli_assets');
  server = await listen(t.app);
  env = { ASSET_STORE_URL: `http://127.0.0.1:${server.port}` };
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-cli-assets-'));
  photo = await ingestFile(t.app, content, 'photo.bin', {
    human_file_name: 'holiday photo.bin',
    tags: 'trip,2026',
    user: 'ann',
    application: 'cam',
  });
  notes = await ingestFile(t.app, 'some notes', 'notes.txt', { tags: 'trip', user: 'bob' });
  data = await ingestFile(t.app, '{"a":1}', 'data.json', { application: 'cam' });
});
afterAll(async () => {
  await server.stop();
  await t.close();
  fs.rmSync(work, { recursive: true, force: true });
});

/** Epoch ms as a clock in Tokyo (UTC+9, no daylight saving) shows it. */
function tokyo(ms: number): string {
  return new Date(ms + 9 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');
}

/** The metadata record as the API answers it, to compare the CLI's output with. */
async function meta(hash: string): Promise<Record<string, unknown>> {
  const res = await request(t.app).get(`/api/v1/can/0/asset/${hash}/meta`).expect(200);
  return (res.body as { data: Record<string, unknown> }).data;
}

describe('asset-store ls and search', () => {
  it('ls --json prints one metadata record per line, newest first, as the store has them', async () => {
    const run = await runCli(['ls', '--json'], { env });
    expect(run.code).toBe(0);
    expect(jsonLines(run.out)).toEqual([
      await meta(data.hash),
      await meta(notes.hash),
      await meta(photo.hash),
    ]);
  });

  it('takes a leading -- as pnpm 10 passes it on (`pnpm cli -- ls`), not as an argument', async () => {
    const run = await runCli(['--', 'ls', '--json'], { env });
    expect(run).toEqual({
      code: 0,
      out: expect.any(String) as string,
      err: '',
    });
    expect(jsonLines(run.out).map((m) => m.hash)).toEqual([data.hash, notes.hash, photo.hash]);
  });

  it('ls --all follows the timestamp cursor page after page', async () => {
    const run = await runCli(['ls', '--json', '--all', '--limit', '1', '--order', 'asc'], { env });
    expect(run.code).toBe(0);
    expect(jsonLines<{ hash: string }>(run.out).map((r) => r.hash)).toEqual([
      photo.hash,
      notes.hash,
      data.hash,
    ]);
  });

  it('search --sort taken --all pages a timeline one item at a time, through assets taken in the same millisecond', async () => {
    // `photo` and `notes` taken in the same millisecond of 2020 (ties go by timestamp), `data`
    // with no date taken (its ingest time counts): newest first, then oldest first.
    const taken = Date.UTC(2020, 8, 13);
    const setTaken = (hashes: string[], value: number | null) =>
      t.index.db
        .updateTable('asset')
        .set({ taken_at: value })
        .where('hash', 'in', hashes)
        .execute();
    await setTaken([photo.hash, notes.hash], taken);
    try {
      const hashes = async (...args: string[]) => {
        const run = await runCli(['search', '--json', '--sort', 'taken', '--all', ...args], {
          env,
        });
        expect({ code: run.code, err: run.err }).toEqual({ code: 0, err: '' });
        return jsonLines<{ hash: string; taken_at: number | null }>(run.out).map((r) => [
          r.hash,
          r.taken_at,
        ]);
      };
      expect(await hashes('--limit', '1')).toEqual([
        [data.hash, null],
        [notes.hash, taken],
        [photo.hash, taken],
      ]);
      expect(await hashes('--limit', '1', '--order', 'asc')).toEqual([
        [photo.hash, taken],
        [notes.hash, taken],
        [data.hash, null],
      ]);
      const wrong = await runCli(['search', '--sort', 'size'], { env });
      expect(wrong.code).toBe(2);
      expect(wrong.err).toContain("option '--sort <key>' argument 'size' is invalid");
    } finally {
      await setTaken([photo.hash, notes.hash], null);
    }
  });

  it('search combines every filter it is given, and draws a table without --json', async () => {
    const filtered = await runCli(['search', '--json', '--tags', 'trip', '--user', 'ann'], { env });
    expect(jsonLines(filtered.out)).toEqual([await meta(photo.hash)]);
    const prefix = await runCli(['search', '--json', '--hash', notes.hash.slice(0, 10)], { env });
    expect(jsonLines(prefix.out)).toEqual([await meta(notes.hash)]);
    const table = await runCli(['search', '--application', 'cam'], { env });
    expect(table.code).toBe(0);
    const [header, ...rows] = table.out.trimEnd().split('\n');
    expect(header).toMatch(/^HASH +TIME +TC +TYPE +SIZE +PIXELS +TAKEN +TAGS +NAME$/);
    expect(rows.map((r) => r.split(/ +/)[0])).toEqual([
      data.hash.slice(0, 12),
      photo.hash.slice(0, 12),
    ]);
    expect(rows[1]).toContain('trip,2026');
    expect(table.err).toBe('2 shown of 2\n');
  });

  it('search -q, --path and --mime-type image/* find a picture; the table shows its size, pixels and dates in local time', async () => {
    const jpeg = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#36c' } })
      .jpeg()
      .withExif({
        IFD2: { DateTimeOriginal: '2024:05:06 07:08:09', OffsetTimeOriginal: '+02:00' },
      })
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const picture = await ingestFile(t.app, jpeg, 'IMG_1.jpg', {
      human_file_name: 'Strand.jpg',
      human_readable_path: 'photos/2024',
    });
    const args = ['search', '--json', '-q', 'STRAND 2024', '--path', 'photos'];
    const found = await runCli([...args, '--mime-type', 'image/*'], { env });
    expect(jsonLines(found.out)).toEqual([await meta(picture.hash)]);
    const sibling = await runCli(['search', '--json', '-q', 'strand', '--path', 'photo'], { env });
    expect(jsonLines(sibling.out)).toEqual([]);
    // Tokyo is UTC+9 all year: ingest and taken times are shown there, not in UTC.
    const table = await runCli(['search', '--q', 'strand'], { env: { ...env, TZ: 'Asia/Tokyo' } });
    const [, row] = table.out.trimEnd().split('\n');
    expect(row).toContain(
      `${picture.hash.slice(0, 12)}  ${tokyo(picture.timestamp)}  --  image/jpeg`,
    );
    expect(row).toMatch(
      new RegExp(
        `  ${humanSize(jpeg.length)} +20x40 +2024-05-06 14:08:09 +photos/2024/Strand.jpg$`,
      ),
    );
  });

  it('passes a bad filter to the store, which names it: exit 1', async () => {
    const run = await runCli(['search', '--limit', '5000'], { env });
    expect(run).toEqual({
      code: 1,
      out: '',
      err: `asset-store: ${env.ASSET_STORE_URL} answered 400: invalid limit: expected an integer from 1 to 1000\n`,
    });
  });
});

describe('asset-store get', () => {
  it("saves under the store's file name and checks Repr-Digest", async () => {
    const run = await runCli(['get', photo.hash, '--json'], { env, cwd: work });
    expect(run.code).toBe(0);
    expect(jsonLines(run.out)).toEqual([
      {
        path: 'holiday photo.bin',
        hash: photo.hash,
        bytes: content.length,
        resumed_from: 0,
        digest: 'ok',
      },
    ]);
    expect(fs.readFileSync(path.join(work, 'holiday photo.bin'))).toEqual(content);
  });

  it('continues a partial download with Range, and keeps what it had', async () => {
    const out = path.join(work, 'resumed.bin');
    fs.writeFileSync(`${out}.part`, content.subarray(0, 80_000));
    const run = await runCli(['get', photo.hash.slice(0, 10), '-o', out, '--json'], { env });
    expect(run.code).toBe(0);
    expect(jsonLines(run.out)).toEqual([
      { path: out, hash: photo.hash, bytes: content.length, resumed_from: 80_000, digest: 'ok' },
    ]);
    expect(fs.readFileSync(out)).toEqual(content);
    expect(fs.existsSync(`${out}.part`)).toBe(false);
  });

  it('refuses a result whose digest differs (a wrong partial file) and removes the partial file: exit 1', async () => {
    const out = path.join(work, 'wrong.bin');
    // A prefix that is not the asset's: only a resume that kept it can end up different.
    fs.writeFileSync(`${out}.part`, Buffer.alloc(1000, 7));
    const run = await runCli(['get', photo.hash, '-o', out], { env });
    expect(run).toEqual({
      code: 1,
      out: '',
      err: `asset-store: ${photo.hash}: the content does not match Repr-Digest; partial file removed\n`,
    });
    expect(fs.existsSync(out)).toBe(false);
    expect(fs.existsSync(`${out}.part`)).toBe(false);
    // The next run starts from nothing and succeeds.
    expect((await runCli(['get', photo.hash, '-o', out], { env })).code).toBe(0);
    expect(fs.readFileSync(out)).toEqual(content);
  });

  it('leaves a file already there alone, naming its absolute path, unless --force: exit 1', async () => {
    fs.writeFileSync(path.join(work, 'holiday photo.bin'), 'mine');
    const kept = await runCli(['get', photo.hash], { env, cwd: work });
    expect(kept).toEqual({
      code: 1,
      out: '',
      err: `asset-store: ${path.join(work, 'holiday photo.bin')} already exists: not overwritten (--force replaces it)\n`,
    });
    expect(fs.readFileSync(path.join(work, 'holiday photo.bin'), 'utf8')).toBe('mine');
    const out = path.join(work, 'named.bin');
    fs.writeFileSync(out, 'mine too');
    expect((await runCli(['get', photo.hash, '-o', out], { env })).code).toBe(1);
    expect(fs.readFileSync(out, 'utf8')).toBe('mine too');
    expect((await runCli(['get', photo.hash, '-o', out, '--force'], { env })).code).toBe(0);
    expect(fs.readFileSync(out)).toEqual(content);
  });

  it('writes to stdout with -o -', async () => {
    const run = await runCli(['get', notes.hash, '-o', '-'], { env });
    expect(run).toEqual({ code: 0, out: 'some notes', err: '' });
  });

  it('says the store does not know a hash: exit 1', async () => {
    const unknown = 'e'.repeat(64);
    const run = await runCli(['get', unknown, '-o', path.join(work, 'none')], { env });
    expect(run).toEqual({
      code: 1,
      out: '',
      err: `asset-store: ${env.ASSET_STORE_URL} answered 404: asset not found\n`,
    });
    const prefix = await runCli(['meta', 'eeeeeeee'], { env });
    expect(prefix).toEqual({
      code: 1,
      out: '',
      err: 'asset-store: eeeeeeee: no asset has such a hash\n',
    });
  });
});

describe('asset-store meta, tag, trash and restore', () => {
  it('meta prints the record', async () => {
    const run = await runCli(['meta', data.hash, '--json'], { env });
    expect(run.code).toBe(0);
    expect(jsonLines(run.out)).toEqual([await meta(data.hash)]);
  });

  it('tag replaces the tags, --add and --remove change some', async () => {
    const set = await runCli(['tag', notes.hash, 'a,b', 'c', '--json'], { env });
    expect(jsonLines(set.out)).toEqual([{ hash: notes.hash, tags: ['a', 'b', 'c'] }]);
    expect(await runCli(['tag', notes.hash, '--add', 'd', 'a'], { env })).toMatchObject({
      code: 0,
    });
    expect(await runCli(['tag', notes.hash, '--remove', 'b'], { env })).toMatchObject({ code: 0 });
    expect(await meta(notes.hash)).toMatchObject({ tags: ['a', 'c', 'd'] });
    const row = await t.index.db
      .selectFrom('asset')
      .select('tags')
      .where('hash', '=', notes.hash)
      .executeTakeFirstOrThrow();
    expect(row.tags).toEqual(['a', 'c', 'd']);
  });

  it('trash hides an asset from ls, restore brings it back', async () => {
    const trashed = await runCli(['trash', data.hash], { env });
    expect(trashed).toEqual({ code: 0, out: `trashed ${data.hash}\n`, err: '' });
    const listed = await runCli(['ls', '--json'], { env });
    expect(jsonLines<{ hash: string }>(listed.out).map((r) => r.hash)).not.toContain(data.hash);
    expect(await meta(data.hash)).toMatchObject({ is_trashed: true });
    const restored = await runCli(['restore', data.hash, '--json'], { env });
    expect(jsonLines(restored.out)).toEqual([{ hash: data.hash, status: 'restored' }]);
    expect(await meta(data.hash)).toMatchObject({ is_trashed: false });
  });
});
