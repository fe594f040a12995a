import fs from 'node:fs';
import request from 'supertest';
import { storeAsset } from './factories.js';
import { createTestApp, type TestApp } from './test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp('altered_file');
});
afterAll(async () => {
  await t.close();
});

const BASE = '/api/v1/can/0';

describe('a file altered behind the service', () => {
  it('is never served as a good 200, even before the watcher flags it', async () => {
    const { row, file } = await storeAsset(t, 'the original bytes', { mime_type: 'text/plain' });
    const first = await request(t.app).get(`${BASE}/asset/${row.hash}`).expect(200);
    expect(first.text).toBe('the original bytes');
    // Same size, and the modification time put back: only the content (and ctime) differ.
    const { atime, mtime } = fs.statSync(file);
    fs.writeFileSync(file, 'the altered  bytes');
    fs.utimesSync(file, atime, mtime);
    const res = await request(t.app).get(`${BASE}/asset/${row.hash}`).expect(500);
    expect(res.body).toEqual({
      status: 'error',
      error: 'asset is corrupted: content does not match its hash',
    });
    const meta = await request(t.app).get(`${BASE}/asset/${row.hash}/meta`).expect(200);
    expect((meta.body as { data: { is_corrupted: boolean } }).data.is_corrupted).toBe(true);
  });

  it('serves an intact file again and again, and refuses it once altered', async () => {
    const { row, file } = await storeAsset(t, 'steady content', { mime_type: 'text/plain' });
    for (let i = 0; i < 3; i++) {
      const ok = await request(t.app).get(`${BASE}/asset/${row.hash}`).expect(200);
      expect(ok.text).toBe('steady content');
    }
    fs.writeFileSync(file, 'Steady content');
    await request(t.app).get(`${BASE}/asset/${row.hash}`).expect(500);
  });
});
