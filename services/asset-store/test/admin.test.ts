import { testDatabaseMode } from '@svc/testing';
import request from 'supertest';
import type { App } from '../src/app.js';
import { findAssetByHash } from '../src/assets/asset.repository.js';
import {
  emptyStorageBehindItsBack,
  isStored,
  removeContentBehindItsBack,
  replaceContentBehindItsBack,
  storedAttributes,
  storedSidecar,
  storeEditedAndTrashed,
} from './asset-helpers.js';
import { storeAsset, type StoredAsset } from './factories.js';
import { useTestApp, variantApp } from './test-app.js';

const TOKEN = 'correct horse battery staple';
const BASE = '/api/v1/can/0';

const t = useTestApp('admin', { admin_token: TOKEN, rebuild_error_threshold: 2 });
beforeEach(async () => {
  await t.index.db.deleteFrom('asset').execute();
  await emptyStorageBehindItsBack(t);
});

function appWithout(): App {
  return variantApp(t, { config: { admin_token: undefined } }).app;
}

const auth = { Authorization: `Bearer ${TOKEN}` };

async function meta(hash: string): Promise<unknown> {
  const res = await request(t.app).get(`${BASE}/asset/${hash}/meta`).expect(200);
  return (res.body as { data: unknown }).data;
}

async function rows(): Promise<number> {
  const all = await t.index.db.selectFrom('asset').select('hash').execute();
  return all.length;
}

describe('admin authentication', () => {
  const endpoints: [string, string][] = [
    ['post', '/admin/verify'],
    ['post', '/admin/rebuild'],
    ['post', '/admin/rebuild?mode=bogus'],
    ['delete', `/admin/asset/${'a'.repeat(64)}`],
    ['delete', '/admin/asset/not-a-hash'],
    ['get', '/admin/verify'],
  ];

  it.each(endpoints)('%s %s without a token answers 401', async (method, url) => {
    const res = await request(t.app)[method as 'post'](`${BASE}${url}`).expect(401);
    expect(res.body).toEqual({ status: 'error', error: 'missing or invalid admin token' });
  });

  it.each([
    ['a wrong token', 'Bearer nope'],
    ['another scheme', `Basic ${TOKEN}`],
    ['a token with a suffix', `Bearer ${TOKEN}x`],
    ['a bare token', TOKEN],
    ['an empty bearer', 'Bearer '],
  ])('refuses %s with 401', async (_name, header) => {
    const res = await request(t.app)
      .post(`${BASE}/admin/verify`)
      .set('Authorization', header)
      .expect(401);
    expect(res.body).toEqual({ status: 'error', error: 'missing or invalid admin token' });
  });

  it.each(endpoints)('%s %s with no admin_token configured answers 403', async (method, url) => {
    const res = await request(appWithout())
      [method as 'post'](`${BASE}${url}`)
      .set(auth)
      .expect(403);
    expect(res.body).toEqual({
      status: 'error',
      error: 'admin endpoints are disabled: no admin_token configured',
    });
  });

  it('checks the rest only after the token', async () => {
    const mode = await request(t.app).post(`${BASE}/admin/rebuild?mode=bogus`).set(auth);
    expect(mode.status).toBe(400);
    expect(mode.body).toEqual({ status: 'error', error: 'invalid mode: expected soft or hard' });
    const hash = await request(t.app).delete(`${BASE}/admin/asset/xyz`).set(auth).expect(400);
    expect(hash.body).toEqual({
      status: 'error',
      error: 'invalid hash: expected 64 hexadecimal characters',
    });
    const method = await request(t.app).get(`${BASE}/admin/verify`).set(auth).expect(405);
    expect(method.headers.allow).toBe('POST');
  });

  it('leaves the asset endpoints open', async () => {
    await request(t.app).get(`${BASE}/list`).expect(200);
  });
});

describe('POST /admin/verify', () => {
  it('scrubs everything now and answers with the counts', async () => {
    await storeAsset(t, 'one');
    const bad = await storeAsset(t, 'two');
    const gone = await storeAsset(t, 'three');
    await replaceContentBehindItsBack(t, bad.row.path, 'TWO');
    await removeContentBehindItsBack(t, gone.row.path);
    const res = await request(t.app).post(`${BASE}/admin/verify`).set(auth).expect(200);
    const data = (res.body as { data: { duration_ms: number } }).data;
    expect(res.body).toEqual({
      status: 'success',
      data: { checked: 3, corrupted: 1, missing: 1, duration_ms: data.duration_ms },
    });
    expect(data.duration_ms).toBeGreaterThanOrEqual(0);
    expect((await findAssetByHash(t.index.db, bad.row.hash))?.is_corrupted).toBe(true);
    expect((await findAssetByHash(t.index.db, gone.row.hash))?.is_corrupted).toBe(true);
  });
});

async function fixtures(): Promise<StoredAsset[]> {
  return [
    await storeAsset(t, 'full record', {
      mime_type: 'text/plain',
      ext: 'txt',
      application: 'notes',
      user: 'ann',
      tags: ['work', 'draft note'],
      description: 'a description',
      human_filename: 'note.txt',
      human_path: 'docs/notes',
      is_trashed: true,
    }),
    await storeAsset(t, '{"a":1}', { mime_type: 'application/json', ext: 'json', folder: 'x/y' }),
    // Too large for ext4 xattrs: the whole set goes to a .meta/ sidecar.
    await storeAsset(t, 'long one', { description: 'd'.repeat(16_384), tags: ['long'] }),
  ];
}

describe('POST /admin/rebuild', () => {
  it('restores every field after the index is emptied (soft)', async () => {
    const made = await fixtures();
    const before = await Promise.all(made.map((a) => meta(a.row.hash)));
    await t.index.db.deleteFrom('asset').execute();
    const res = await request(t.app).post(`${BASE}/admin/rebuild`).set(auth).expect(200);
    expect(res.body).toEqual({
      status: 'success',
      data: { mode: 'soft', scanned: 3, indexed: 3, errors: 0 },
    });
    expect(await Promise.all(made.map((a) => meta(a.row.hash)))).toEqual(before);
    const stored = await findAssetByHash(t.index.db, made[1]!.row.hash);
    expect(stored).toMatchObject({ path: made[1]!.row.path, size: 7 });
  });

  it.each(['soft', 'hard'])(
    'restores what ingest, PATCH and trash wrote after the database is emptied (%s)',
    async (mode) => {
      const { photo, data } = await storeEditedAndTrashed(t.app);
      const before = [await meta(photo.hash), await meta(data.hash)];
      expect(before[0]).toMatchObject({ tags: ['trip', 'best'], description: 'edited later' });
      expect(before[1]).toMatchObject({ is_trashed: true });

      await t.index.db.deleteFrom('asset').execute();
      const res = await request(t.app)
        .post(`${BASE}/admin/rebuild?mode=${mode}`)
        .set(auth)
        .expect(200);
      expect(res.body).toEqual({
        status: 'success',
        data: { mode, scanned: 2, indexed: 2, errors: 0 },
      });
      expect([await meta(photo.hash), await meta(data.hash)]).toEqual(before);
    },
  );

  it('drops the index first with mode=hard, so every row comes from the files', async () => {
    const made = await fixtures();
    const before = await Promise.all(made.map((a) => meta(a.row.hash)));
    await t.index.db.updateTable('asset').set({ description: 'stale', user: 'nobody' }).execute();
    const res = await request(t.app).post(`${BASE}/admin/rebuild?mode=hard`).set(auth).expect(200);
    expect(res.body).toEqual({
      status: 'success',
      data: { mode: 'hard', scanned: 3, indexed: 3, errors: 0 },
    });
    expect(await Promise.all(made.map((a) => meta(a.row.hash)))).toEqual(before);
  });

  it('indexes a file without attributes from its name and a recomputed hash', async () => {
    const plain = await storeAsset(t, 'hello', {
      ext: 'txt',
      tags: ['a', 'b'],
      withoutAttributes: true,
    });
    const forged = await storeAsset(t, 'forged', { ext: 'png', withoutAttributes: true });
    await replaceContentBehindItsBack(t, forged.row.path, 'not what was hashed');
    await t.index.db.deleteFrom('asset').execute();
    await request(t.app).post(`${BASE}/admin/rebuild`).set(auth).expect(200);
    expect(await meta(plain.row.hash)).toEqual({
      hash: plain.row.hash,
      mime_type: 'text/plain',
      tags: ['a', 'b'],
      timestamp: plain.row.timestamp,
      is_trashed: false,
      is_corrupted: false,
      size: 5,
      width: null,
      height: null,
      taken_at: null,
    });
    expect(await meta(forged.row.hash)).toMatchObject({
      mime_type: 'image/png',
      is_corrupted: true,
    });
    // Written back, so the next rebuild reads them rather than hashing again.
    expect(await storedAttributes(t, plain.row.path)).toMatchObject({ hash: plain.row.hash });
  });

  it('flags rows whose file vanished as corrupted and keeps them', async () => {
    const [, , gone] = await fixtures();
    await removeContentBehindItsBack(t, gone!.row.path);
    const res = await request(t.app).post(`${BASE}/admin/rebuild`).set(auth).expect(200);
    expect(res.body).toEqual({
      status: 'success',
      data: { mode: 'soft', scanned: 2, indexed: 2, errors: 0 },
    });
    expect(await rows()).toBe(3);
    expect(await meta(gone!.row.hash)).toMatchObject({ is_corrupted: true });
  });

  it('counts files it cannot index and escalates to hard past the threshold', async () => {
    await fixtures();
    const vanished = await storeAsset(t, 'vanishing');
    await removeContentBehindItsBack(t, vanished.row.path);
    await replaceContentBehindItsBack(t, 'stray.txt', 'not an asset');
    const soft = await request(t.app).post(`${BASE}/admin/rebuild`).set(auth).expect(200);
    expect(soft.body).toEqual({
      status: 'success',
      data: { mode: 'soft', scanned: 4, indexed: 3, errors: 1 },
    });
    expect(await rows()).toBe(4);

    await replaceContentBehindItsBack(t, 'stray2.txt', 'nor this');
    await replaceContentBehindItsBack(t, 'stray3.txt', 'nor this');
    const hard = await request(t.app).post(`${BASE}/admin/rebuild`).set(auth).expect(200);
    expect(hard.body).toEqual({
      status: 'success',
      data: { mode: 'hard', scanned: 6, indexed: 3, errors: 3 },
    });
    // The hard pass dropped the index first: the row of the vanished file is gone.
    expect(await rows()).toBe(3);
    const list = await request(t.app)
      .get(`${BASE}/list?include_trashed=true&include_corrupted=true`)
      .expect(200);
    expect((list.body as { data: { pagination: { total: number } } }).data.pagination.total).toBe(
      3,
    );
  });

  it('happens on its own at start when the index is empty but files exist', async () => {
    const made = await fixtures();
    const before = await Promise.all(made.map((a) => meta(a.row.hash)));
    const { rebuilder } = t.runtime.services;
    expect(await rebuilder.rebuildIfEmpty()).toBeUndefined();
    await t.index.db.deleteFrom('asset').execute();
    expect(await rebuilder.rebuildIfEmpty()).toEqual({
      mode: 'soft',
      scanned: 3,
      indexed: 3,
      errors: 0,
    });
    expect(await Promise.all(made.map((a) => meta(a.row.hash)))).toEqual(before);
  });
});

describe('DELETE /admin/asset/{hash}', () => {
  it('purges the file, its thumbnails, its attributes and its row', async () => {
    const [, , long] = await fixtures();
    const { row } = long!;
    expect(await storedSidecar(t, row.path)).toBeDefined();
    const thumb = `.thumbs/${row.hash}_10x10.jpg`;
    await replaceContentBehindItsBack(t, thumb, 'jpeg');
    expect(await isStored(t, thumb)).toBe(true);
    const res = await request(t.app)
      .delete(`${BASE}/admin/asset/${row.hash.toUpperCase()}`)
      .set(auth)
      .expect(200);
    expect(res.body).toEqual({ status: 'success', data: 'purged' });
    expect(await isStored(t, row.path)).toBe(false);
    expect(await storedSidecar(t, row.path)).toBeUndefined();
    expect(await isStored(t, thumb)).toBe(false);
    expect(await findAssetByHash(t.index.db, row.hash)).toBeUndefined();
    expect(await rows()).toBe(2);
    await request(t.app).get(`${BASE}/asset/${row.hash}/meta`).expect(404);
  });

  it('answers 404 for an unknown hash', async () => {
    const res = await request(t.app)
      .delete(`${BASE}/admin/asset/${'c'.repeat(64)}`)
      .set(auth)
      .expect(404);
    expect(res.body).toEqual({ status: 'error', error: 'asset not found' });
  });
});

/**
 * A purge removes the file before the row, holding the row's lock; a download meanwhile
 * finds no file. Here a transaction holds that lock the way a purge does, with the file
 * already gone, while the download waits (one pooled connection each: server only).
 */
// Skipped on PGlite: the lock and the download each need a connection, and PGlite has one.
(testDatabaseMode() === 'postgres' ? describe : describe.skip)(
  'a download while a purge holds the row',
  () => {
    async function downloadDuringPurge(
      outcome: 'purged' | 'rolled back',
    ): Promise<{ status: number; body: unknown; waited: boolean; hash: string }> {
      const { row } = await storeAsset(t, 'purge race', { ext: 'txt' });
      let answered = false;
      let waited = false;
      let download: Promise<request.Response> | undefined;
      await t.index.db
        .transaction()
        .execute(async (trx) => {
          await trx
            .selectFrom('asset')
            .select('hash')
            .where('hash', '=', row.hash)
            .forUpdate()
            .execute();
          await removeContentBehindItsBack(t, row.path);
          download = request(t.app)
            .get(`${BASE}/asset/${row.hash}`)
            .then((res) => {
              answered = true;
              return res;
            });
          await new Promise((resolve) => setTimeout(resolve, 300));
          if (outcome === 'purged')
            await trx.deleteFrom('asset').where('hash', '=', row.hash).execute();
          // Read while the lock is still held: PostgreSQL releases it before the client
          // hears of the commit, so a fast download may answer before the commit returns.
          waited = !answered;
          if (outcome === 'rolled back') throw new Error('rolled back');
        })
        .catch((err: Error) => {
          if (err.message !== 'rolled back') throw err;
        });
      const res = await download!;
      return { status: res.status, body: res.body, waited, hash: row.hash };
    }

    it.each([
      ['answers 404 once the purge has deleted the row', 'purged', 404, 'asset not found'],
      [
        'answers 500 and flags the asset when the purge fails and the row stays',
        'rolled back',
        500,
        'asset is corrupted: its file is missing',
      ],
    ] as const)('%s', async (_name, outcome, status, error) => {
      const res = await downloadDuringPurge(outcome);
      expect(res.waited).toBe(true);
      expect({ status: res.status, body: res.body }).toEqual({
        status,
        body: { status: 'error', error },
      });
      const row = await findAssetByHash(t.index.db, res.hash);
      expect(row && { is_corrupted: row.is_corrupted }).toEqual(
        outcome === 'purged' ? undefined : { is_corrupted: true },
      );
    });
  },
);
