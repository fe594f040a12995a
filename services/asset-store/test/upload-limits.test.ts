import http from 'node:http';
import { createLogger } from '@svc/envelope';
import request from 'supertest';
import { createApp } from '../src/app.js';
import { ingestFile, listen, rowCount, storedFiles, tmpFiles } from './asset-helpers.js';
import { createTestApp, useTestApp, type TestApp } from './test-app.js';

const t = useTestApp('upload_limits', { max_upload_bytes: 1000 });

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
    let partStarted = false;
    // The same world, with a clock that tells when the part began (its timestamp is issued).
    const app = createApp({
      config: t.config,
      storage: t.storage,
      clock: () => {
        partStarted = true;
        return Date.now();
      },
      db: t.index.db,
      ping: t.index.ping,
      logger: createLogger('t', 'silent'),
      version: '0.1.0',
    });
    const { port, closed, stop } = await listen(app);
    try {
      const req = startUpload(port, 1000);
      req.write(Buffer.alloc(500, 3));
      await eventually(() => partStarted);
      req.destroy();
      await closed;
      // Small parts are gathered before their file exists: give a stray write time to show.
      await new Promise((r) => setTimeout(r, 200));
      expect(tmpFiles(t)).toEqual([]);
      expect(storedFiles(t)).toEqual(files);
      expect(await rowCount(t)).toBe(rows);
    } finally {
      await stop();
    }
  });
});

describe('an upload killed while its part is being written to .tmp', () => {
  let big: TestApp;
  beforeAll(async () => {
    big = await createTestApp('upload_killed');
  });
  afterAll(async () => {
    await big.close();
  });

  it('leaves no file, no row and nothing in .tmp', async () => {
    const { port, stop } = await listen(big.app);
    try {
      const req = startUpload(port, 1 << 20);
      req.write(Buffer.alloc(256 << 10, 3));
      // Past the small-upload buffer, the part is streamed to a file under .tmp/.
      await eventually(() => tmpFiles(big).length === 1);
      req.destroy();
      await eventually(() => tmpFiles(big).length === 0);
      expect(storedFiles(big)).toEqual([]);
      expect(await rowCount(big)).toBe(0);
    } finally {
      await stop();
    }
  });
});

/** A multipart upload whose `file` part announces `size` bytes; the caller writes them. */
function startUpload(port: number, size: number): http.ClientRequest {
  const boundary = 'x-boundary-1';
  const head =
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.bin"\r\n` +
    'Content-Type: application/octet-stream\r\n\r\n';
  const req = http.request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/api/v1/can/0/ingest',
    headers: {
      'Content-Type': `multipart/form-data; boundary=${boundary}`,
      'Content-Length': String(head.length + size + 100),
    },
  });
  req.on('error', () => undefined);
  req.write(head);
  return req;
}
