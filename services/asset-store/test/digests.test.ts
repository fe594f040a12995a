import { createHash } from 'node:crypto';
import request from 'supertest';
import {
  ingestData,
  ingestFile,
  rowCount,
  stagedLeftovers,
  storedAssets,
  storedAttributes,
} from './asset-helpers.js';
import { createTestApp, type TestApp } from './test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp('digests', { admin_token: 'admin' });
});
afterAll(async () => {
  await t.close();
});

const BASE = '/api/v1/can/0';
const sha256 = (content: string | Buffer) => createHash('sha256').update(content).digest();
const reprDigest = (content: string | Buffer) => `sha-256=:${sha256(content).toString('base64')}:`;

async function contentSha256Of(hash: string): Promise<string | null> {
  const row = await t.index.db
    .selectFrom('asset')
    .select('content_sha256')
    .where('hash', '=', hash)
    .executeTakeFirstOrThrow();
  return row.content_sha256;
}

describe('content digests', () => {
  it('sends Repr-Digest (RFC 9530) of the whole content on 200, 206 and HEAD', async () => {
    const { hash } = await ingestFile(t.app, '0123456789', 'a.txt');
    const whole = await request(t.app).get(`${BASE}/asset/${hash}`).expect(200);
    expect(whole.headers['repr-digest']).toBe(reprDigest('0123456789'));
    const part = await request(t.app)
      .get(`${BASE}/asset/${hash}`)
      .set('Range', 'bytes=0-1')
      .expect(206);
    expect(part.headers['repr-digest']).toBe(reprDigest('0123456789'));
    const head = await request(t.app).head(`${BASE}/asset/${hash}`).expect(200);
    expect(head.headers['repr-digest']).toBe(reprDigest('0123456789'));
  });

  it('keeps the digest in the index and as attribute content_sha256, for data ingest too', async () => {
    const { hash, filename } = await ingestData(t.app, { data: { a: 1 } });
    const text = JSON.stringify({ a: 1 }, null, 2);
    expect(await contentSha256Of(hash)).toBe(sha256(text).toString('hex'));
    expect((await storedAttributes(t, filename)).content_sha256).toBe(sha256(text).toString('hex'));
  });

  it('digests a large upload (hashed off the main thread) the same way, and checks its sha256', async () => {
    const content = Buffer.alloc((3 << 20) + 11);
    for (let i = 0; i < content.length; i++) content[i] = (i * 31) & 0xff;
    const digest = sha256(content).toString('hex');
    const { hash, filename } = await ingestFile(t.app, content, 'big.bin', { sha256: digest });
    expect(await contentSha256Of(hash)).toBe(digest);
    expect((await storedAttributes(t, filename)).content_sha256).toBe(digest);
    const head = await request(t.app).head(`${BASE}/asset/${hash}`).expect(200);
    expect(head.headers['repr-digest']).toBe(reprDigest(content));

    const files = await storedAssets(t);
    const res = await request(t.app)
      .post(`${BASE}/ingest`)
      .field('sha256', digest)
      .attach('file', Buffer.concat([content, Buffer.from('!')]), 'big2.bin')
      .expect(400);
    expect(res.body).toEqual({
      status: 'error',
      error: 'invalid sha256: the file content has a different SHA-256',
    });
    expect(await storedAssets(t)).toEqual(files);
    expect(await stagedLeftovers(t)).toEqual([]);
  });

  it('takes a matching sha256 field, in either case', async () => {
    const digest = sha256('checked').toString('hex').toUpperCase();
    const { hash } = await ingestFile(t.app, 'checked', 'c.txt', { sha256: digest });
    expect(await contentSha256Of(hash)).toBe(digest.toLowerCase());
  });

  it('refuses a file whose SHA-256 is not the sha256 field: 400, nothing kept', async () => {
    const files = await storedAssets(t);
    const rows = await rowCount(t);
    const res = await request(t.app)
      .post(`${BASE}/ingest`)
      .field('sha256', sha256('expected').toString('hex'))
      .attach('file', Buffer.from('something else'), 'x.txt')
      .expect(400);
    expect(res.body).toEqual({
      status: 'error',
      error: 'invalid sha256: the file content has a different SHA-256',
    });
    expect(await storedAssets(t)).toEqual(files);
    expect(await stagedLeftovers(t)).toEqual([]);
    expect(await rowCount(t)).toBe(rows);
  });

  it('refuses a malformed sha256 field with 400 naming it', async () => {
    const res = await request(t.app)
      .post(`${BASE}/ingest`)
      .field('sha256', 'abc')
      .attach('file', Buffer.from('x'), 'x.txt')
      .expect(400);
    expect(res.body).toEqual({
      status: 'error',
      error: 'invalid sha256: expected 64 hexadecimal characters',
    });
    expect(await stagedLeftovers(t)).toEqual([]);
  });
});

describe('search by content', () => {
  it('finds every asset with the content, combinable with the other filters', async () => {
    const content = `same bytes ${Date.now()}`;
    const first = await ingestFile(t.app, content, 'a.txt', { user: 'ann', tags: 'x' });
    const second = await ingestFile(t.app, content, 'b.txt', { user: 'bob', tags: 'x' });
    await ingestFile(t.app, `${content}!`, 'c.txt', { user: 'ann', tags: 'x' });
    const digest = sha256(content).toString('hex');
    const hashes = async (query: string) => {
      const res = await request(t.app).get(`${BASE}/search?${query}`).expect(200);
      return (res.body as { data: { items: { hash: string }[] } }).data.items.map((a) => a.hash);
    };
    expect(await hashes(`sha256=${digest}`)).toEqual([second.hash, first.hash]);
    expect(await hashes(`sha256=${digest.toUpperCase()}&user=ann`)).toEqual([first.hash]);
    expect(await hashes(`sha256=${digest}&tags=x&order=asc`)).toEqual([first.hash, second.hash]);
    expect(await hashes(`sha256=${'0'.repeat(64)}`)).toEqual([]);
  });

  it('refuses a sha256 that is not 64 hexadecimal characters', async () => {
    const res = await request(t.app).get(`${BASE}/search?sha256=abc`).expect(400);
    expect(res.body).toEqual({
      status: 'error',
      error: 'invalid sha256: expected 64 hexadecimal characters',
    });
  });
});
