import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeS3 } from '@svc/testing';
import sharp from 'sharp';
import request from 'supertest';
import { attachmentHeader } from '../src/assets/asset-download.js';
import { ingestFile, listen } from './asset-helpers.js';
import { createTestApp, useS3Blobs, variantApp, type TestApp } from './test-app.js';

const asset = (hash: string) => `/api/v1/can/0/asset/${hash}`;

/** What curl saw after following the redirect: the last response's status, headers and body. */
async function curl(
  url: string,
  headers: string[] = [],
): Promise<{ status: number; headers: string; body: Buffer }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'curl-'));
  try {
    const dump = path.join(dir, 'headers');
    // Asynchronously: the server curl talks to runs in this process.
    const { stdout } = await promisify(execFile)(
      'curl',
      ['-sS', '-L', '--max-time', '20', '-D', dump, ...headers.flatMap((h) => ['-H', h]), url],
      { encoding: 'buffer', maxBuffer: 1 << 24 },
    );
    // One header block per response; the last is the storage's.
    const last = fs
      .readFileSync(dump, 'latin1')
      .trim()
      .split(/\r\n\r\n/)
      .at(-1)!;
    return { status: Number(last.split(' ')[1]), headers: last.toLowerCase(), body: stdout };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describeS3('downloads redirected to a presigned GET (s3_download_redirect)', (s3) => {
  useS3Blobs(s3);
  let t: TestApp;
  let base: string;
  let stop: () => Promise<void>;
  const content = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256));
  const human = 'Grüße 2026.bin';
  let hash: string;

  beforeAll(async () => {
    t = await createTestApp('redirect', { s3_download_redirect: true });
    const served = await listen(t.app);
    base = `http://127.0.0.1:${served.port}`;
    stop = served.stop;
    ({ hash } = await ingestFile(t.app, content, 'data.bin', { human_file_name: human }));
  }, 60_000);
  afterAll(async () => {
    await stop();
    await t.close();
  }, 60_000);

  it('answers 307 to a short-lived presigned GET of the object, not to be cached', async () => {
    const res = await fetch(`${base}${asset(hash)}`, { redirect: 'manual' });
    expect(res.status).toBe(307);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('etag')).toBe(`"${hash}"`);
    const location = new URL(res.headers.get('location')!);
    expect(location.origin).toBe(new URL(s3.endpoint).origin);
    expect(location.pathname).toContain(t.bucket!);
    expect(location.searchParams.get('X-Amz-Expires')).toBe('60');
    expect(location.searchParams.get('response-content-type')).toBe('application/octet-stream');
    expect(location.searchParams.get('response-content-disposition')).toBe(attachmentHeader(human));
  });

  it('serves disposition=inline itself, with the sandbox S3 could not add', async () => {
    const res = await fetch(`${base}${asset(hash)}?disposition=inline`, { redirect: 'manual' });
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(content);
    expect(res.headers.get('content-disposition')).toBe(attachmentHeader(human, 'inline'));
    expect(res.headers.get('content-security-policy')).toBe('sandbox');
  });

  it('gives fetch the bytes with the type and disposition once it follows the redirect', async () => {
    const res = await fetch(`${base}${asset(hash)}`);
    expect(res.status).toBe(200);
    expect(res.redirected).toBe(true);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(content);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-disposition')).toBe(attachmentHeader(human));
    expect(res.headers.get('content-length')).toBe(String(content.length));
  });

  it('gives curl -L the same bytes and headers, and a range from the storage', async () => {
    const whole = await curl(`${base}${asset(hash)}`);
    expect(whole.status).toBe(200);
    expect(whole.body.equals(content)).toBe(true);
    expect(whole.headers).toContain('content-type: application/octet-stream');
    expect(whole.headers).toContain(
      `content-disposition: ${attachmentHeader(human).toLowerCase()}`,
    );
    const part = await curl(`${base}${asset(hash)}`, ['Range: bytes=100-199']);
    expect(part.status).toBe(206);
    expect(part.body.equals(content.subarray(100, 200))).toBe(true);
  });

  it('answers conditional requests itself before any redirect: 304, 412, and If-Match served here', async () => {
    const notModified = await fetch(`${base}${asset(hash)}`, {
      headers: { 'If-None-Match': `"${hash}"` },
      redirect: 'manual',
    });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('location')).toBeNull();
    expect(notModified.headers.get('etag')).toBe(`"${hash}"`);
    const failed = await request(t.app).get(asset(hash)).set('If-Match', '"another"').expect(412);
    expect(failed.headers.location).toBeUndefined();
    expect((failed.body as { status: string }).status).toBe('error');
    // S3 would judge If-Match by its own ETag: served here, by the spec's rules.
    const matched = await fetch(`${base}${asset(hash)}`, {
      headers: { 'If-Match': `"${hash}"` },
      redirect: 'manual',
    });
    expect(matched.status).toBe(200);
    expect(Buffer.from(await matched.arrayBuffer())).toEqual(content);
    expect(matched.headers.get('repr-digest')).toMatch(/^sha-256=:/);
  });

  it('answers HEAD itself, and leaves thumbnails and the default (no redirect) as they were', async () => {
    const head = await request(t.app).head(asset(hash)).expect(200);
    expect(head.headers['content-length']).toBe(String(content.length));
    expect(head.headers.location).toBeUndefined();
    const image = await sharp({
      create: { width: 64, height: 32, channels: 3, background: '#3366cc' },
    })
      .png()
      .toBuffer();
    const { hash: imageHash } = await ingestFile(t.app, image, 'pic.png');
    const thumb = await request(t.app)
      .get(`${asset(imageHash)}/thumb/32/32`)
      .expect(200);
    expect(thumb.headers['content-type']).toBe('image/jpeg');
    const plain = variantApp(t, { config: { s3_download_redirect: false } }).app;
    const direct = await request(plain).get(asset(hash)).buffer(true).expect(200);
    expect(direct.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(direct.headers['content-disposition']).toBe(attachmentHeader(human));
  });
});
