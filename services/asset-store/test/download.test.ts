import { createHash, randomBytes } from 'node:crypto';
import request from 'supertest';
import { findAssetByHash } from '../src/assets/asset.repository.js';
import { AssetService } from '../src/assets/asset.service.js';
import { ingestFile, UNKNOWN_HASH } from './asset-helpers.js';
import { useTestApp } from './test-app.js';

const t = useTestApp('download');

const asset = (hash: string) => `/api/v1/can/0/asset/${hash}`;
const binary = (res: request.Response, cb: (err: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => cb(null, Buffer.concat(chunks)));
};

describe('download', () => {
  it('streams the bytes with type, disposition, length, ETag and cache headers', async () => {
    const content = Buffer.from('hello, asset');
    const { hash } = await ingestFile(t.app, content, 'greeting.txt', {
      human_file_name: 'Grüße 2026.txt',
    });
    const res = await request(t.app).get(asset(hash)).buffer(true).parse(binary).expect(200);
    expect(res.body).toEqual(content);
    expect(res.headers['content-type']).toBe('text/plain');
    expect(res.headers['content-length']).toBe(String(content.length));
    expect(res.headers['etag']).toBe(`"${hash}"`);
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBe('sandbox');
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="Gr__e 2026.txt"; filename*=UTF-8''Gr%C3%BC%C3%9Fe%202026.txt`,
    );
  });

  it('answers disposition=inline inline, still sandboxed, for a frame to show it', async () => {
    const content = Buffer.from('%PDF-1.4 not really');
    const { hash } = await ingestFile(t.app, content, 'talk.pdf', {
      human_file_name: 'talk.pdf',
      mime_type: 'application/pdf',
    });
    const res = await request(t.app)
      .get(`${asset(hash)}?disposition=inline`)
      .buffer(true)
      .parse(binary)
      .expect(200);
    expect(res.body).toEqual(content);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe('inline; filename="talk.pdf"');
    expect(res.headers['content-security-policy']).toBe('sandbox');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const explicit = await request(t.app).get(`${asset(hash)}?disposition=attachment`).expect(200);
    expect(explicit.headers['content-disposition']).toBe('attachment; filename="talk.pdf"');
    const bad = await request(t.app).get(`${asset(hash)}?disposition=open`);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      status: 'error',
      error: 'invalid disposition: Invalid option: expected one of "attachment"|"inline"',
    });
  });

  it('names the physical file when there is no human file name', async () => {
    const { hash, filename } = await ingestFile(t.app, 'x', 'a.txt');
    const res = await request(t.app).get(asset(hash)).expect(200);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${filename}"`);
  });

  it('accepts the hash in upper case', async () => {
    const { hash } = await ingestFile(t.app, 'upper', 'a.txt');
    const res = await request(t.app).get(asset(hash.toUpperCase())).expect(200);
    expect(res.text).toBe('upper');
  });

  it('answers HEAD with the headers and no body', async () => {
    const { hash } = await ingestFile(t.app, '12345', 'a.txt');
    const res = await request(t.app).head(asset(hash)).expect(200);
    expect(res.headers['content-length']).toBe('5');
    expect(res.headers['etag']).toBe(`"${hash}"`);
    expect(res.text).toBeUndefined();
  });

  it('serves a byte range with 206', async () => {
    const { hash } = await ingestFile(t.app, '0123456789', 'a.txt');
    const res = await request(t.app).get(asset(hash)).set('Range', 'bytes=2-5').expect(206);
    expect(res.text).toBe('2345');
    expect(res.headers['content-range']).toBe('bytes 2-5/10');
    expect(res.headers['content-length']).toBe('4');
  });

  it('serves a large asset whole and in a large range, byte for byte', async () => {
    // 8 MiB and more: on S3, read over a connection of its own (s3-direct-read.ts).
    const content = randomBytes(9 << 20);
    const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
    const { hash } = await ingestFile(t.app, content, 'large.bin');
    const whole = await request(t.app).get(asset(hash)).buffer(true).parse(binary).expect(200);
    expect(whole.headers['content-length']).toBe(String(content.length));
    expect(sha256(whole.body as Buffer)).toBe(sha256(content));
    const end = content.length - 2;
    const range = await request(t.app)
      .get(asset(hash))
      .set('Range', `bytes=1-${end}`)
      .buffer(true)
      .parse(binary)
      .expect(206);
    expect(range.headers['content-range']).toBe(`bytes 1-${end}/${content.length}`);
    expect(sha256(range.body as Buffer)).toBe(sha256(content.subarray(1, end + 1)));
  });

  it('answers an unsatisfiable range with 416 in the error envelope', async () => {
    const { hash } = await ingestFile(t.app, '0123456789', 'a.txt');
    const res = await request(t.app).get(asset(hash)).set('Range', 'bytes=50-60').expect(416);
    expect(res.body).toEqual({ status: 'error', error: 'range not satisfiable' });
    expect(res.headers['content-range']).toBe('bytes */10');
    expect(res.headers['content-disposition']).toBeUndefined();
  });

  it('answers If-None-Match with the ETag with 304', async () => {
    const { hash } = await ingestFile(t.app, 'cached', 'a.txt');
    const res = await request(t.app).get(asset(hash)).set('If-None-Match', `"${hash}"`).expect(304);
    expect(res.text).toBe('');
    await request(t.app).get(asset(hash)).set('If-None-Match', '"other"').expect(200);
  });

  it('serves a zero-byte asset', async () => {
    const { hash } = await ingestFile(t.app, '', 'empty.bin');
    const res = await request(t.app).get(asset(hash)).expect(200);
    expect(res.headers['content-length']).toBe('0');
  });

  it('keeps a trashed asset downloadable', async () => {
    const { hash } = await ingestFile(t.app, 'still here', 'a.txt');
    await request(t.app).delete(asset(hash)).expect(200);
    const res = await request(t.app).get(asset(hash)).expect(200);
    expect(res.text).toBe('still here');
  });

  it('answers an unknown hash with 404', async () => {
    const res = await request(t.app).get(asset(UNKNOWN_HASH)).expect(404);
    expect(res.body).toEqual({ status: 'error', error: 'asset not found' });
  });

  it.each(['abc', 'z'.repeat(64), 'a'.repeat(65)])(
    'answers the malformed hash %s with 400',
    async (bad) => {
      const res = await request(t.app).get(asset(bad)).expect(400);
      expect(res.body).toEqual({
        status: 'error',
        error: 'invalid hash: expected 64 hexadecimal characters',
      });
    },
  );

  it('answers a corrupted asset with 500 saying so, while its metadata still reads', async () => {
    const { hash } = await ingestFile(t.app, 'will rot', 'a.txt');
    await t.index.db
      .updateTable('asset')
      .set({ is_corrupted: true })
      .where('hash', '=', hash)
      .execute();
    const res = await request(t.app).get(asset(hash)).expect(500);
    expect(res.body).toEqual({
      status: 'error',
      error: 'asset is corrupted: content does not match its hash',
    });
    expect(res.headers['content-disposition']).toBeUndefined();
    const meta = await request(t.app)
      .get(`${asset(hash)}/meta`)
      .expect(200);
    expect((meta.body as { data: { is_corrupted: boolean } }).data.is_corrupted).toBe(true);
  });

  it('answers an asset whose file vanished with 500 saying so, and flags it corrupted', async () => {
    const { hash, filename } = await ingestFile(t.app, 'gone soon', 'a.txt', { user: 'vanishing' });
    await t.blobs.delete(filename);
    const res = await request(t.app).get(asset(hash)).expect(500);
    expect(res.body).toEqual({ status: 'error', error: 'asset is corrupted: its file is missing' });
    // Metadata, list and search agree with that answer at once, not only once the
    // verifier's watch has reported the deletion.
    const meta = await request(t.app)
      .get(`${asset(hash)}/meta`)
      .expect(200);
    expect((meta.body as { data: { is_corrupted: boolean } }).data.is_corrupted).toBe(true);
    const search = (query: string) =>
      request(t.app).get(`/api/v1/can/0/search?user=vanishing${query}`).expect(200);
    const hidden = await search('');
    expect((hidden.body as { data: { items: unknown[] } }).data.items).toEqual([]);
    const shown = await search('&include_corrupted=true');
    expect((shown.body as { data: { items: { hash: string }[] } }).data.items).toEqual([
      expect.objectContaining({ hash, is_corrupted: true }),
    ]);
    const again = await request(t.app).get(asset(hash)).expect(500);
    expect(again.body).toEqual({
      status: 'error',
      error: 'asset is corrupted: its file is missing',
    });
  });

  it('answers any container other than 0 with 404', async () => {
    const { hash } = await ingestFile(t.app, 'x', 'a.txt');
    for (const url of [
      `/api/v1/can/1/asset/${hash}`,
      '/api/v1/can/abc/ingest',
      '/api/v1/can/00/list',
    ]) {
      const res = await request(t.app).get(url).expect(404);
      expect(res.body).toEqual({ status: 'error', error: 'container not found' });
    }
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const { hash } = await ingestFile(t.app, 'x', 'a.txt');
    const res = await request(t.app).put(asset(hash)).expect(405);
    expect(res.body).toEqual({ status: 'error', error: 'method not allowed' });
    expect(res.headers['allow']).toBe('GET, HEAD, PATCH, DELETE');
    const ingest = await request(t.app).get('/api/v1/can/0/ingest').expect(405);
    expect(ingest.headers['allow']).toBe('POST');
    await request(t.app).get('/api/v1/can/0/ingest/data').expect(405);
    await request(t.app)
      .get(`${asset(hash)}/restore`)
      .expect(405);
    await request(t.app)
      .post(`${asset(hash)}/meta`)
      .expect(405);
  });
});

/**
 * A purge can remove the file after the download located it and before `send` opens it.
 * Here the purge lands in exactly that gap: right after `locate` returns.
 */
describe('a file purged between being located and being opened', () => {
  it.each([
    ['answers 404 when the purge deleted the row too', true, 404, 'asset not found'],
    [
      'answers 500 and flags the asset when the row stays',
      false,
      500,
      'asset is corrupted: its file is missing',
    ],
  ] as const)('%s', async (_name, rowDeleted, status, error) => {
    const { hash, filename } = await ingestFile(t.app, 'located, then gone', 'a.txt');
    const original = Object.getOwnPropertyDescriptor(AssetService.prototype, 'locate')!;
    const locate = original.value as AssetService['locate'];
    Object.defineProperty(AssetService.prototype, 'locate', {
      ...original,
      value: async function (this: AssetService, located: string) {
        const found = await locate.call(this, located);
        await t.blobs.delete(filename);
        if (rowDeleted) await t.index.db.deleteFrom('asset').where('hash', '=', hash).execute();
        return found;
      },
    });
    let res: request.Response;
    try {
      res = await request(t.app).get(asset(hash));
    } finally {
      Object.defineProperty(AssetService.prototype, 'locate', original);
    }
    expect({ status: res.status, body: res.body as unknown }).toEqual({
      status,
      body: { status: 'error', error },
    });
    expect(res.headers['content-disposition']).toBeUndefined();
    const row = await findAssetByHash(t.index.db, hash);
    expect(row && { is_corrupted: row.is_corrupted }).toEqual(
      rowDeleted ? undefined : { is_corrupted: true },
    );
  });
});
