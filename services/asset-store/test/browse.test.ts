import request from 'supertest';
import { ingestFile } from './asset-helpers.js';
import { createTestApp, type TestApp } from './test-app.js';

// GET /folders (the console's folder browsing): the direct subfolders of a folder among
// visible assets' human_path, with their counts, at the top and below it.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp('browse');
  const paths = ['photos/2026/summer', 'photos/2026', 'photos/2025', 'photos-old', 'docs', ''];
  for (const [i, path] of paths.entries()) {
    await ingestFile(t.app, `file ${i}`, `f${i}.txt`, {
      mime_type: 'text/plain',
      ...(path ? { human_readable_path: path } : {}),
    });
  }
});
afterAll(async () => {
  await t.close();
});

const BASE = '/api/v1/can/0';

describe('GET /folders', () => {
  it('names the top-level folders with how many assets sit in each or below', async () => {
    const res = await request(t.app).get(`${BASE}/folders`).expect(200);
    expect(res.body).toEqual({
      status: 'success',
      data: {
        path: '',
        folders: [
          { name: 'docs', count: 1, path: 'docs' },
          { name: 'photos', count: 3, path: 'photos' },
          { name: 'photos-old', count: 1, path: 'photos-old' },
        ],
      },
    });
  });

  it('names the subfolders of a folder, not those of a folder that only starts alike', async () => {
    const res = await request(t.app).get(`${BASE}/folders?path=photos`).expect(200);
    expect(res.body).toEqual({
      status: 'success',
      data: {
        path: 'photos',
        folders: [
          { name: '2025', count: 1, path: 'photos/2025' },
          { name: '2026', count: 2, path: 'photos/2026' },
        ],
      },
    });
    const deeper = await request(t.app).get(`${BASE}/folders?path=photos/2026`).expect(200);
    expect(deeper.body).toEqual({
      status: 'success',
      data: {
        path: 'photos/2026',
        folders: [{ name: 'summer', count: 1, path: 'photos/2026/summer' }],
      },
    });
    const none = await request(t.app).get(`${BASE}/folders?path=nowhere`).expect(200);
    expect(none.body).toEqual({ status: 'success', data: { path: 'nowhere', folders: [] } });
  });
});
