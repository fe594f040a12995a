import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expectedHash, listen, storedAttributes, storedContent } from './asset-helpers.js';
import { createTestApp, type TestApp } from './test-app.js';
import {
  checksumOf,
  createUpload,
  encodeMetadata,
  headUpload,
  patchUpload,
  tusUpload,
  uploadFolder,
  uploadsUrl,
} from './tus-helpers.js';

const MAX_BYTES = 8 << 20;
let t: TestApp;
let base: string;
let stop: () => Promise<void>;
beforeAll(async () => {
  t = await createTestApp('uploads', { max_upload_bytes: MAX_BYTES });
  const served = await listen(t.app);
  base = `http://127.0.0.1:${served.port}`;
  stop = served.stop;
});
afterAll(async () => {
  await stop();
  await t.close();
});

const API = '/api/v1/can/0';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest();
const envelope = (error: string) => ({ status: 'error', error });

async function json(res: Response): Promise<unknown> {
  return res.json();
}

describe('resumable uploads (tus 1.0.0)', () => {
  it('advertises the protocol, its extensions, the size limit and the checksum algorithm', async () => {
    const res = await fetch(uploadsUrl(base), { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expect({
      version: res.headers.get('tus-version'),
      extensions: res.headers.get('tus-extension'),
      max: res.headers.get('tus-max-size'),
      checksum: res.headers.get('tus-checksum-algorithm'),
    }).toEqual({
      version: '1.0.0',
      extensions: 'creation,creation-with-upload,termination,expiration,checksum',
      max: String(MAX_BYTES),
      checksum: 'sha256',
    });
  });

  it('turns a finished upload into one asset by the rules of POST /ingest: bytes, hash, metadata, attributes', async () => {
    const content = randomBytes(3 * (1 << 20) + 123);
    const done = await tusUpload(base, content, {
      chunkSize: 1 << 20,
      metadata: {
        filename: 'clip.bin',
        tags: 'one, two,one',
        application: 'cam',
        user: 'ann',
        description: 'säge',
        human_readable_path: 'a/b',
      },
    });
    expect(done.hash).toBe(expectedHash(content, done.timestamp));
    const meta = await fetch(`${base}${API}/asset/${done.hash}/meta`);
    expect(await json(meta)).toEqual({
      status: 'success',
      data: {
        hash: done.hash,
        timestamp: done.timestamp,
        mime_type: 'application/octet-stream',
        application: 'cam',
        user: 'ann',
        tags: ['one', 'two'],
        description: 'säge',
        human_path: 'a/b',
        is_trashed: false,
        is_corrupted: false,
        size: content.length,
        width: null,
        height: null,
        taken_at: null,
      },
    });
    const download = await fetch(`${base}${API}/asset/${done.hash}`);
    expect(Buffer.from(await download.arrayBuffer()).equals(content)).toBe(true);
    expect(download.headers.get('repr-digest')).toBe(
      `sha-256=:${sha256(content).toString('base64')}:`,
    );
    const filename = `${done.timestamp}_${done.hash}_one_two.bin`;
    expect((await storedContent(t, filename))?.equals(content)).toBe(true);
    const attrs = await storedAttributes(t, filename);
    expect(attrs).toMatchObject({
      hash: done.hash,
      timestamp: String(done.timestamp),
      content_sha256: sha256(content).toString('hex'),
      tags: '["one","two"]',
    });
    const row = await t.index.db
      .selectFrom('asset')
      .select(['content_sha256', 'size'])
      .where('hash', '=', done.hash)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ content_sha256: sha256(content).toString('hex'), size: content.length });
    // Only the upload's record is left, for the HEADs that name the asset until it expires.
    const id = done.url.split('/').pop()!;
    expect(uploadFolder(t.storageRoot)).toEqual([`${id}.json`]);
    const head = await headUpload(done.url);
    expect([
      head.status,
      head.headers.get('asset-hash'),
      head.headers.get('asset-timestamp'),
    ]).toEqual([200, done.hash, String(done.timestamp)]);
    expect(head.headers.get('upload-offset')).toBe(String(content.length));
  });

  it('makes an asset of a 0-byte upload at its creation, typed from its file name', async () => {
    const { res } = await createUpload(base, 0, {
      'Upload-Metadata': encodeMetadata({ filename: 'empty.txt' }),
    });
    expect(res.status).toBe(201);
    const hash = res.headers.get('asset-hash')!;
    const timestamp = Number(res.headers.get('asset-timestamp'));
    expect(hash).toBe(expectedHash(Buffer.alloc(0), timestamp));
    const meta = (await json(await fetch(`${base}${API}/asset/${hash}/meta`))) as {
      data: { mime_type: string };
    };
    expect(meta.data.mime_type).toBe('text/plain');
  });

  it('refuses bad metadata at creation with 400 naming the field, and keeps nothing', async () => {
    const before = uploadFolder(t.storageRoot);
    const cases: [Record<string, string | Buffer>, string][] = [
      [{ mime_type: 'nonsense' }, 'invalid mime_type: expected a MIME type like type/subtype'],
      [
        { tags: Array.from({ length: 65 }, (_, i) => `t${i}`).join(',') },
        'invalid tags: expected at most 64 tags',
      ],
      [{ user: 'x'.repeat(1025) }, 'invalid user: expected at most 1024 characters'],
      [{ description: Buffer.from([0xff, 0xfe]) }, 'invalid description: not valid UTF-8'],
      [{ filename: 'a\u0000b' }, 'invalid filename: expected text without NUL characters'],
    ];
    for (const [metadata, error] of cases) {
      const { res } = await createUpload(base, 10, { 'Upload-Metadata': encodeMetadata(metadata) });
      expect([res.status, await json(res)]).toEqual([400, envelope(error)]);
    }
    const malformed = await createUpload(base, 10, { 'Upload-Metadata': 'key not-base64!' });
    expect(malformed.res.status).toBe(400);
    expect(await json(malformed.res)).toMatchObject({ status: 'error' });
    expect(uploadFolder(t.storageRoot)).toEqual(before);
  });

  it("refuses a creation body that is not the upload's bytes with 415, and keeps nothing", async () => {
    const before = uploadFolder(t.storageRoot);
    const res = await fetch(`${base}${API}/uploads`, {
      method: 'POST',
      headers: {
        'Tus-Resumable': '1.0.0',
        'Upload-Length': '5',
        'Content-Type': 'multipart/form-data; boundary=B',
      },
      body: 'hello',
    });
    expect([res.status, await json(res)]).toEqual([
      415,
      envelope(
        "unsupported body type: an upload's bytes are sent as application/offset+octet-stream",
      ),
    ]);
    expect(uploadFolder(t.storageRoot)).toEqual(before);
  });

  it('answers an Upload-Length over max_upload_bytes with 413 in the envelope', async () => {
    const { res } = await createUpload(base, MAX_BYTES + 1);
    expect([res.status, await json(res)]).toEqual([413, envelope('Maximum size exceeded')]);
  });

  it('refuses a PATCH whose Upload-Checksum does not match with 460: its bytes never count', async () => {
    const content = randomBytes(2000);
    const { url } = await createUpload(base, content.length);
    const first = content.subarray(0, 1000);
    const good = await patchUpload(url, 0, first, { 'Upload-Checksum': checksumOf(sha256(first)) });
    expect([good.status, good.headers.get('upload-offset')]).toEqual([204, '1000']);
    const rest = content.subarray(1000);
    const wrong = await patchUpload(url, 1000, rest, {
      'Upload-Checksum': checksumOf(sha256(Buffer.from('something else'))),
    });
    expect([wrong.status, await json(wrong)]).toEqual([
      460,
      envelope('checksum mismatch: the bytes were not kept'),
    ]);
    expect((await headUpload(url)).headers.get('upload-offset')).toBe('1000');
    const id = url.split('/').pop()!;
    expect(fs.statSync(path.join(t.storageRoot, '.tmp', 'uploads', id)).size).toBe(1000);
    const md5 = await patchUpload(url, 1000, rest, { 'Upload-Checksum': `md5 ${'A'.repeat(24)}` });
    expect([md5.status, await json(md5)]).toEqual([
      400,
      envelope('invalid Upload-Checksum: unsupported algorithm "md5" (sha256 only)'),
    ]);
    const last = await patchUpload(url, 1000, rest, {
      'Upload-Checksum': checksumOf(sha256(rest)),
    });
    expect(last.status).toBe(204);
    const hash = last.headers.get('asset-hash')!;
    const download = await fetch(`${base}${API}/asset/${hash}`);
    expect(Buffer.from(await download.arrayBuffer()).equals(content)).toBe(true);
  });

  it('never lists or finds an unfinished upload', async () => {
    const marker = `unfinished-${Date.now()}`;
    const { url } = await createUpload(base, 100, {
      'Upload-Metadata': encodeMetadata({ application: marker, tags: marker }),
    });
    expect((await patchUpload(url, 0, Buffer.alloc(99, 1))).status).toBe(204);
    for (const query of [`list?application=${marker}`, `search?tags=${marker}`]) {
      const res = await fetch(`${base}${API}/${query}&include_trashed=true&include_corrupted=true`);
      expect(await json(res)).toEqual({
        status: 'success',
        data: { items: [], pagination: { limit: 50, offset: 0, total: 0 } },
      });
    }
  });

  it('terminates an unfinished upload with DELETE: its files are gone, then 404', async () => {
    const { url } = await createUpload(base, 100);
    expect((await patchUpload(url, 0, Buffer.alloc(10))).status).toBe(204);
    const id = url.split('/').pop()!;
    expect(uploadFolder(t.storageRoot)).toEqual(expect.arrayContaining([id, `${id}.json`]));
    const res = await fetch(url, { method: 'DELETE', headers: { 'Tus-Resumable': '1.0.0' } });
    expect(res.status).toBe(204);
    expect(uploadFolder(t.storageRoot).filter((name) => name.startsWith(id))).toEqual([]);
    const head = await headUpload(url);
    expect(head.status).toBe(404);
    const again = await patchUpload(url, 10, Buffer.alloc(10));
    expect([again.status, await json(again)]).toEqual([
      404,
      envelope('The file for this url was not found'),
    ]);
  });

  it('keeps a finished upload from termination (400) and answers unknown ids with 404', async () => {
    const { res, url } = await createUpload(base, 0);
    expect(res.status).toBe(201);
    const del = await fetch(url, { method: 'DELETE', headers: { 'Tus-Resumable': '1.0.0' } });
    expect([del.status, await json(del)]).toEqual([
      400,
      envelope('Cannot terminate an already completed upload'),
    ]);
    const odd = await headUpload(`${uploadsUrl(base)}/..%2F..%2Fetc`);
    expect([odd.status]).toEqual([404]);
    const unknown = await patchUpload(`${uploadsUrl(base)}/${'0'.repeat(32)}`, 0, Buffer.alloc(1));
    expect([unknown.status, await json(unknown)]).toEqual([
      404,
      envelope('The file for this url was not found'),
    ]);
  });

  it('answers protocol mistakes in the envelope: a wrong offset 409, no Tus-Resumable 412, a wrong method 405', async () => {
    const { url } = await createUpload(base, 10);
    const conflict = await patchUpload(url, 5, Buffer.alloc(5));
    expect([conflict.status, await json(conflict)]).toEqual([
      409,
      envelope('Upload-Offset conflict'),
    ]);
    const bare = await fetch(uploadsUrl(base), {
      method: 'POST',
      headers: { 'Upload-Length': '1' },
    });
    expect([bare.status, await json(bare)]).toEqual([412, envelope('Tus-Resumable Required')]);
    const get = await fetch(url);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('HEAD, PATCH, DELETE, OPTIONS');
  });
});

describe('resumable uploads with max_upload_bytes 0', () => {
  let closed: TestApp;
  let closedBase: string;
  let stopClosed: () => Promise<void>;
  beforeAll(async () => {
    closed = await createTestApp('uploads_zero', { max_upload_bytes: 0 });
    const served = await listen(closed.app);
    closedBase = `http://127.0.0.1:${served.port}`;
    stopClosed = served.stop;
  });
  afterAll(async () => {
    await stopClosed();
    await closed.close();
  });

  it('takes only empty files, as POST /ingest does (tus itself reads 0 as no limit)', async () => {
    const { res } = await createUpload(closedBase, 1);
    expect([res.status, await json(res)]).toEqual([
      413,
      envelope('file too large: the limit is 0 bytes'),
    ]);
    expect(uploadFolder(closed.storageRoot)).toEqual([]);
    expect((await createUpload(closedBase, 0)).res.status).toBe(201);
  });
});

describe('resumable uploads with api_token set', () => {
  let guarded: TestApp;
  let guardedBase: string;
  let stopGuarded: () => Promise<void>;
  beforeAll(async () => {
    guarded = await createTestApp('uploads_token', { api_token: 'data-secret' });
    const served = await listen(guarded.app);
    guardedBase = `http://127.0.0.1:${served.port}`;
    stopGuarded = served.stop;
  });
  afterAll(async () => {
    await stopGuarded();
    await guarded.close();
  });

  it('needs the bearer token on every tus request (401 in the envelope), and works with it', async () => {
    const anonymous = await createUpload(guardedBase, 5);
    expect([anonymous.res.status, await json(anonymous.res)]).toEqual([
      401,
      envelope('missing or invalid API token'),
    ]);
    expect(anonymous.res.headers.get('www-authenticate')).toBe('Bearer');
    expect(uploadFolder(guarded.storageRoot)).toEqual([]);
    const auth = { Authorization: 'Bearer data-secret' };
    const { url } = await createUpload(guardedBase, 5, auth);
    for (const res of [
      await headUpload(url),
      await patchUpload(url, 0, Buffer.from('hello')),
      await fetch(url, { method: 'DELETE', headers: { 'Tus-Resumable': '1.0.0' } }),
      await fetch(uploadsUrl(guardedBase), { method: 'OPTIONS' }),
    ]) {
      expect(res.status).toBe(401);
    }
    const done = await tusUpload(guardedBase, Buffer.from('hello'), { headers: auth });
    expect(done.hash).toBe(expectedHash('hello', done.timestamp));
  });
});
