import { createHash } from 'node:crypto';
import request from 'supertest';
import { ApiError, AssetStoreClient, type Asset, type Job } from '../src/client/index.js';
import { listen, UNKNOWN_HASH } from './asset-helpers.js';
import { createTestApp, type TestApp } from './test-app.js';

// The shared client (src/client) against a real store over HTTP, with Node's global fetch:
// each method's answer is the store's own, and its errors are `ApiError`s.
const API_TOKEN = 'client-api';
const ADMIN_TOKEN = 'client-admin';
const BASE = '/api/v1/can/0';

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let store: AssetStoreClient;
let admin: AssetStoreClient;
beforeAll(async () => {
  t = await createTestApp('client', { api_token: API_TOKEN, admin_token: ADMIN_TOKEN });
  server = await listen(t.app);
  const baseUrl = `http://127.0.0.1:${server.port}`;
  store = new AssetStoreClient({ baseUrl, token: API_TOKEN });
  admin = new AssetStoreClient({ baseUrl, token: ADMIN_TOKEN });
});
afterAll(async () => {
  await server.stop();
  await t.close();
});

/** The record as the API answers it, read past the client. */
async function metaOf(hash: string): Promise<Asset> {
  const res = await request(t.app)
    .get(`${BASE}/asset/${hash}/meta`)
    .set('Authorization', `Bearer ${API_TOKEN}`)
    .expect(200);
  return (res.body as { data: Asset }).data;
}

describe('AssetStoreClient', () => {
  it('ingests a file and a JSON value, and reads them back by meta, list, search and lookup', async () => {
    const file = await store.ingestFile(new Blob(['hello client']), 'hello.txt', {
      tags: 'client,file',
      human_file_name: 'hello.txt',
      human_readable_path: 'docs',
      user: 'ann',
    });
    expect(file).toEqual({
      hash: expect.stringMatching(/^[0-9a-f]{64}$/) as string,
      timestamp: expect.any(Number) as number,
      filename: expect.stringMatching(/\.txt$/) as string,
    });
    const data = await store.ingestData({ data: { a: 1 }, application: 'app', tags: 'client' });
    const fileRecord = await metaOf(file.hash);
    const dataRecord = await metaOf(data.hash);
    expect(fileRecord).toEqual({
      hash: file.hash,
      mime_type: 'text/plain',
      tags: ['client', 'file'],
      human_filename: 'hello.txt',
      human_path: 'docs',
      user: 'ann',
      timestamp: file.timestamp,
      is_trashed: false,
      is_corrupted: false,
      size: 12,
      width: null,
      height: null,
      taken_at: null,
    });
    expect(await store.meta(file.hash)).toEqual(fileRecord);
    expect(await store.list({ order: 'asc' })).toEqual({
      items: [fileRecord, dataRecord],
      pagination: { limit: 50, offset: 0, total: 2 },
    });
    // Values as a person typed them pass as text.
    expect(await store.search({ tags: 'file', limit: '5' })).toEqual({
      items: [fileRecord],
      pagination: { limit: 5, offset: 0, total: 1 },
    });
    const held = createHash('sha256').update('hello client').digest('hex');
    expect(await store.lookupContent([held, UNKNOWN_HASH])).toEqual({
      items: [{ sha256: held, hash: file.hash, timestamp: file.timestamp }],
      missing: [UNKNOWN_HASH],
    });
    expect(await store.download(file.hash).then((b) => b.text())).toBe('hello client');
    const thumb = await store.thumbnail(file.hash, 64);
    expect(thumb.type).toBe('image/svg+xml');
    expect(thumb.size).toBeGreaterThan(0);
  });

  it('updates, trashes and restores, as the record then shows', async () => {
    const { hash } = await store.ingestData({ data: 'x' });
    await store.update(hash, { tags: ['b', 'a'], description: 'changed' });
    expect(await metaOf(hash)).toMatchObject({ tags: ['b', 'a'], description: 'changed' });
    await store.trash(hash);
    expect((await metaOf(hash)).is_trashed).toBe(true);
    await store.restore(hash);
    expect((await metaOf(hash)).is_trashed).toBe(false);
    await admin.purge(hash);
    await request(t.app)
      .get(`${BASE}/asset/${hash}/meta`)
      .set('Authorization', `Bearer ${API_TOKEN}`)
      .expect(404);
  });

  it('starts, lists, reads and ends jobs, and runs verify and rebuild (admin token)', async () => {
    const started = await admin.startJob({ kind: 'verify' });
    expect(started).toMatchObject({ kind: 'verify', status: 'running' });
    let job: Job = started;
    for (let i = 0; i < 200 && job.status === 'running'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      job = await admin.job(started.id);
    }
    expect(job).toMatchObject({
      id: started.id,
      status: 'done',
      result: { checked: expect.any(Number) as number, corrupted: 0, missing: 0 },
    });
    expect((await admin.jobs()).map((j) => j.id)).toContain(started.id);
    // An ended job is answered as it ended.
    expect(await admin.cancelJob(started.id)).toEqual(job);
    expect(await admin.verify()).toMatchObject({ corrupted: 0, missing: 0 });
    expect(await admin.rebuild()).toMatchObject({ mode: 'soft', errors: 0 });
  });

  it('throws ApiError with the status and the envelope message', async () => {
    const refused = new AssetStoreClient({ baseUrl: `http://127.0.0.1:${server.port}` });
    const error = await refused.list().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 401, message: 'missing or invalid API token' });
    await expect(store.meta(UNKNOWN_HASH)).rejects.toMatchObject({ status: 404 });
    await expect(store.search({ limit: 'many' })).rejects.toMatchObject({
      name: 'ApiError',
      status: 400,
      message: 'invalid limit: expected an integer from 1 to 1000',
    });
    await expect(store.download(UNKNOWN_HASH)).rejects.toMatchObject({ status: 404 });
    await expect(store.startJob({ kind: 'verify' })).rejects.toMatchObject({ status: 401 });
  });

  it('sends through the fetch it is given', async () => {
    const seen: string[] = [];
    const traced = new AssetStoreClient({
      baseUrl: `http://127.0.0.1:${server.port}`,
      token: API_TOKEN,
      fetch: (req) => {
        seen.push(`${req.method} ${new URL(req.url).pathname}${new URL(req.url).search}`);
        return fetch(req);
      },
    });
    await traced.list({ limit: 1, include_trashed: 'true' });
    expect(seen).toEqual([`GET ${BASE}/list?limit=1&include_trashed=true`]);
  });
});
