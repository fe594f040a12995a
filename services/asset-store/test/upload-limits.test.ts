import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { ingestFile, rowCount, storedFiles, tmpFiles } from './asset-helpers.js';
import { createTestApp, type TestApp } from './test-app.js';

let t: TestApp;
let server: http.Server;
beforeAll(async () => {
  t = await createTestApp('upload_limits', { max_upload_bytes: 1000 });
  server = http.createServer(t.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

async function eventually(check: () => Promise<boolean> | boolean, ms = 3000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('upload limits and aborted uploads', () => {
  it('accepts a file of exactly max_upload_bytes', async () => {
    await ingestFile(t.app, Buffer.alloc(1000, 1), 'full.bin');
  });

  it('answers a file over max_upload_bytes with 413 and leaves nothing behind', async () => {
    const files = storedFiles(t);
    const rows = await rowCount(t);
    const res = await request(t.app)
      .post('/api/v1/can/0/ingest')
      .field('tags', 'big')
      .attach('file', Buffer.alloc(1001, 2), 'big.bin')
      .expect(413);
    expect(res.body).toEqual({ status: 'error', error: 'file too large: the limit is 1000 bytes' });
    expect(storedFiles(t)).toEqual(files);
    expect(await rowCount(t)).toBe(rows);
    expect(tmpFiles(t)).toEqual([]);
  });

  it('answers 413 for a file far over the limit, arriving in many chunks', async () => {
    const res = await request(t.app)
      .post('/api/v1/can/0/ingest')
      .attach('file', Buffer.alloc(3 << 20, 4), 'huge.bin')
      .expect(413);
    expect(res.body).toEqual({ status: 'error', error: 'file too large: the limit is 1000 bytes' });
    expect(tmpFiles(t)).toEqual([]);
  });

  it('leaves no file, no row and nothing in .tmp when the client dies mid-body', async () => {
    const files = storedFiles(t);
    const rows = await rowCount(t);
    const boundary = 'x-boundary-1';
    const head =
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.bin"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n';
    const { port } = server.address() as AddressInfo;
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/api/v1/can/0/ingest',
      headers: {
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': String(head.length + 900 + 100),
      },
    });
    req.on('error', () => undefined);
    req.write(head);
    req.write(Buffer.alloc(500, 3));
    // Wait until the part is being staged, then kill the connection.
    await eventually(() => tmpFiles(t).length === 1);
    req.destroy();
    await eventually(() => tmpFiles(t).length === 0);
    expect(storedFiles(t)).toEqual(files);
    expect(await rowCount(t)).toBe(rows);
  });
});
