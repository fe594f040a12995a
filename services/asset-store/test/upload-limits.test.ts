import request from 'supertest';
import { ingestFile, listen, rowCount, stagedLeftovers, storedAssets } from './asset-helpers.js';
import { eventually, startUpload } from './upload-helpers.js';
import { useTestApp, variantApp } from './test-app.js';

const t = useTestApp('upload_limits', { max_upload_bytes: 1000 });

describe('upload limits and aborted uploads', () => {
  it('accepts a file of exactly max_upload_bytes', async () => {
    await ingestFile(t.app, Buffer.alloc(1000, 1), 'full.bin');
  });

  it('answers a file over max_upload_bytes with 413 and leaves nothing behind', async () => {
    const files = await storedAssets(t);
    const rows = await rowCount(t);
    const res = await request(t.app)
      .post('/api/v1/can/0/ingest')
      .field('tags', 'big')
      .attach('file', Buffer.alloc(1001, 2), 'big.bin')
      .expect(413);
    expect(res.body).toEqual({ status: 'error', error: 'file too large: the limit is 1000 bytes' });
    expect(await storedAssets(t)).toEqual(files);
    expect(await rowCount(t)).toBe(rows);
    expect(await stagedLeftovers(t)).toEqual([]);
  });

  it('answers 413 for a file far over the limit, arriving in many chunks', async () => {
    const res = await request(t.app)
      .post('/api/v1/can/0/ingest')
      .attach('file', Buffer.alloc(3 << 20, 4), 'huge.bin')
      .expect(413);
    expect(res.body).toEqual({ status: 'error', error: 'file too large: the limit is 1000 bytes' });
    expect(await stagedLeftovers(t)).toEqual([]);
  });

  it('leaves no file, no row and nothing in .tmp when the client dies mid-body', async () => {
    const files = await storedAssets(t);
    const rows = await rowCount(t);
    let partStarted = false;
    // The same world, with a clock that tells when the part began (its timestamp is issued).
    const { app } = variantApp(t, {
      clock: () => {
        partStarted = true;
        return Date.now();
      },
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
      expect(await stagedLeftovers(t)).toEqual([]);
      expect(await storedAssets(t)).toEqual(files);
      expect(await rowCount(t)).toBe(rows);
    } finally {
      await stop();
    }
  });
});
