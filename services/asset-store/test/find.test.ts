import sharp from 'sharp';
import request from 'supertest';
import { blobAttributes, ingestFile } from './asset-helpers.js';
import { insertAssetRow, storeAsset } from './factories.js';
import { JOB_TOKEN, jobAuth, startJob, untilEnded } from './job-helpers.js';
import { createTestApp, type TestApp } from './test-app.js';

// Contract, "Additions, part 2", "asset-store: finding things": the record's probed facts,
// the rebuild and backfill that restore them, `q`, MIME families, `path`, and `GET /`.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp('find', { admin_token: JOB_TOKEN });
});
afterAll(async () => {
  await t.close();
});
beforeEach(async () => {
  await t.index.db.deleteFrom('asset').execute();
  await t.index.db.deleteFrom('job').execute();
});

const BASE = '/api/v1/can/0';
/** 2024-05-06 07:08:09 at +02:00. */
const TAKEN = Date.UTC(2024, 4, 6, 5, 8, 9);

/** A 40×20 JPEG whose EXIF turns it a quarter (orientation 6), taken at TAKEN. */
function photo(): Promise<Buffer> {
  return sharp({ create: { width: 40, height: 20, channels: 3, background: '#c33' } })
    .jpeg()
    .withExif({
      IFD2: { DateTimeOriginal: '2024:05:06 07:08:09', OffsetTimeOriginal: '+02:00' },
    })
    .withMetadata({ orientation: 6 })
    .toBuffer();
}

async function meta(hash: string): Promise<Record<string, unknown>> {
  const res = await request(t.app).get(`${BASE}/asset/${hash}/meta`).expect(200);
  return (res.body as { data: Record<string, unknown> }).data;
}

describe('the record: size, width, height, taken_at', () => {
  it('are read from an image at ingest (after EXIF orientation), kept in its attributes, and shown by meta, list and search', async () => {
    const jpeg = await photo();
    const { hash, timestamp, filename } = await ingestFile(t.app, jpeg, 'IMG_1.jpg');
    const png = await sharp({ create: { width: 3, height: 5, channels: 4, background: '#0f0' } })
      .png()
      .toBuffer();
    const plain = await ingestFile(t.app, png, 'p.png');
    const text = await ingestFile(t.app, 'not a picture', 'n.txt');
    const record = {
      hash,
      mime_type: 'image/jpeg',
      tags: [],
      timestamp,
      is_trashed: false,
      is_corrupted: false,
      size: jpeg.length,
      width: 20,
      height: 40,
      taken_at: TAKEN,
    };
    expect(await meta(hash)).toEqual(record);
    expect(await meta(plain.hash)).toMatchObject({ width: 3, height: 5, taken_at: null });
    expect(await meta(text.hash)).toMatchObject({
      size: 13,
      width: null,
      height: null,
      taken_at: null,
    });
    expect(await blobAttributes(t, filename)).toMatchObject({
      width: '20',
      height: '40',
      taken_at: String(TAKEN),
    });
    const list = await request(t.app).get(`${BASE}/list?order=asc`).expect(200);
    expect((list.body as { data: { items: unknown[] } }).data.items[0]).toEqual(record);
    const found = await request(t.app).get(`${BASE}/search?hash=${hash}`).expect(200);
    expect((found.body as { data: { items: unknown[] } }).data.items).toEqual([record]);
  });

  it('are restored by a hard rebuild from the files', async () => {
    const { hash } = await ingestFile(t.app, await photo(), 'IMG_2.jpg');
    const before = await meta(hash);
    await request(t.app).post(`${BASE}/admin/rebuild?mode=hard`).set(jobAuth).expect(200);
    expect(await meta(hash)).toEqual(before);
  });

  it('come to images stored before them from a backfill job, which reads are not kept waiting for', async () => {
    const jpeg = await photo();
    // Images and a text file as they were stored before the facts were kept.
    const old = await storeAsset(t, jpeg, { mime_type: 'image/jpeg', ext: 'jpg' });
    const note = await storeAsset(t, 'a note', { mime_type: 'text/plain', ext: 'txt' });
    const broken = await storeAsset(t, 'not really a jpeg', { mime_type: 'image/jpeg' });
    expect(await meta(old.row.hash)).toMatchObject({ width: null, height: null, taken_at: null });
    const job = await startJob(t.app, { kind: 'backfill' });
    expect(job).toMatchObject({ kind: 'backfill', status: 'running' });
    await request(t.app).get(`${BASE}/list`).expect(200);
    const ended = await untilEnded(t.app, job.id);
    expect(ended).toMatchObject({
      status: 'done',
      total: 2,
      done: 2,
      result: { probed: 2, images: 1, unreadable: 1, errors: 0 },
    });
    expect(await meta(old.row.hash)).toMatchObject({
      size: jpeg.length,
      width: 20,
      height: 40,
      taken_at: TAKEN,
    });
    expect(await meta(note.row.hash)).toMatchObject({ width: null, taken_at: null });
    expect(await meta(broken.row.hash)).toMatchObject({ width: null, taken_at: null });
    // Written to the file too, so a rebuild keeps them; the next run has only the
    // unreadable image left to try.
    expect(await blobAttributes(t, old.row.path)).toMatchObject({
      width: '20',
      height: '40',
      taken_at: String(TAKEN),
    });
    await request(t.app).post(`${BASE}/admin/rebuild?mode=hard`).set(jobAuth).expect(200);
    expect(await meta(old.row.hash)).toMatchObject({ width: 20, height: 40, taken_at: TAKEN });
    const again = await untilEnded(t.app, (await startJob(t.app, { kind: 'backfill' })).id);
    expect(again).toMatchObject({ total: 1, result: { probed: 1, images: 0, unreadable: 1 } });
  });
});

describe('GET /search: q, MIME families and path', () => {
  async function found(query: Record<string, string>): Promise<string[]> {
    const res = await request(t.app).get(`${BASE}/search`).query(query).expect(200);
    const body = res.body as { data: { items: { hash: string }[]; pagination: { total: number } } };
    expect(body.data.pagination.total).toBe(body.data.items.length);
    return body.data.items.map((i) => i.hash).sort();
  }
  const sorted = (...rows: { hash: string }[]) => rows.map((r) => r.hash).sort();

  it('q: every term, case-insensitive substrings of filename, path, description or a tag, in any script', async () => {
    const beach = await insertAssetRow(t.index.db, {
      human_filename: 'Strand_2026.JPG',
      human_path: 'Fotos/Été',
      tags: ['urlaub'],
    });
    const note = await insertAssetRow(t.index.db, {
      description: 'Notes from the ÉTÉ meeting',
      tags: ['work', '会議'],
      user: 'ann',
    });
    const other = await insertAssetRow(t.index.db, { human_filename: 'strandkorb.png' });
    await insertAssetRow(t.index.db, { human_filename: 'nothing here' });
    expect(await found({ q: 'strand' })).toEqual(sorted(beach, other));
    expect(await found({ q: 'été' })).toEqual(sorted(beach, note));
    expect(await found({ q: '  STRAND   été ' })).toEqual(sorted(beach));
    expect(await found({ q: 'URLAUB 2026' })).toEqual(sorted(beach));
    expect(await found({ q: '会議' })).toEqual(sorted(note));
    expect(await found({ q: 'été', user: 'ann' })).toEqual(sorted(note));
    // A term never spans two fields.
    expect(await found({ q: 'jpgfotos' })).toEqual([]);
    expect(await found({ q: '' })).toHaveLength(4);
  });

  it('q: LIKE wildcards in a term match only themselves', async () => {
    const percent = await insertAssetRow(t.index.db, { human_filename: '100%_done.txt' });
    await insertAssetRow(t.index.db, { human_filename: '1000 xdone.txt' });
    expect(await found({ q: '%' })).toEqual(sorted(percent));
    expect(await found({ q: '0%_d' })).toEqual(sorted(percent));
    expect(await found({ q: '_' })).toEqual(sorted(percent));
  });

  it('mime_type=image/* matches the whole family, an exact type only itself', async () => {
    const jpeg = await insertAssetRow(t.index.db, { mime_type: 'image/jpeg' });
    const png = await insertAssetRow(t.index.db, { mime_type: 'image/png' });
    await insertAssetRow(t.index.db, { mime_type: 'text/plain' });
    await insertAssetRow(t.index.db, { mime_type: 'imagex/odd' });
    expect(await found({ mime_type: 'image/*' })).toEqual(sorted(jpeg, png));
    expect(await found({ mime_type: 'IMAGE/*', q: '' })).toEqual(sorted(jpeg, png));
    expect(await found({ mime_type: 'image/png' })).toEqual(sorted(png));
  });

  it('path matches the folder and every folder below it, not a sibling sharing its prefix', async () => {
    const top = await insertAssetRow(t.index.db, { human_path: 'photos' });
    const below = await insertAssetRow(t.index.db, { human_path: 'photos/2026/june' });
    await insertAssetRow(t.index.db, { human_path: 'photos-old' });
    await insertAssetRow(t.index.db, { human_path: 'my/photos' });
    await insertAssetRow(t.index.db, {});
    expect(await found({ path: 'photos' })).toEqual(sorted(top, below));
    expect(await found({ path: 'photos/' })).toEqual(sorted(top, below));
    expect(await found({ path: 'photos/2026' })).toEqual(sorted(below));
    expect(await found({ path: 'photos', q: 'june' })).toEqual(sorted(below));
  });

  it('refuses more than 16 terms, naming q', async () => {
    const res = await request(t.app)
      .get(`${BASE}/search`)
      .query({ q: Array.from({ length: 17 }, (_, i) => `t${i}`).join(' ') })
      .expect(400);
    expect(JSON.stringify(res.body)).toMatch(/\bq\b.*at most 16 terms/);
  });
});

describe('GET /', () => {
  it('answers 308 to the console', async () => {
    const res = await request(t.app).get('/').expect(308);
    expect(res.headers.location).toBe('/console/');
  });
});
