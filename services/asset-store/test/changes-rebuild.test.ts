import sharp from 'sharp';
import request from 'supertest';
import { deleteAllAssets } from '../src/admin/rebuild.repository.js';
import { ingestFile, removeContentBehindItsBack } from './asset-helpers.js';
import { changesPage } from './change-helpers.js';
import { storeAsset } from './factories.js';
import { emptyBeforeEach, JOB_TOKEN, jobAuth, startJob, untilEnded } from './job-helpers.js';
import { useTestApp } from './test-app.js';

// Contract, "changes and webhooks": every change to the index is an event, `asset.updated`
// for a PATCH. What the store derives on its own (size, pixels, taken_at, the content
// digest, thumbnails) is not a change a client made, and a rebuild that puts back the
// same index changed nothing: neither is an event.

const t = useTestApp('changes_rebuild', { admin_token: JOB_TOKEN });
const BASE = '/api/v1/can/0';

async function lastPosition(): Promise<string> {
  const head = await t.index.db.selectFrom('asset_event_head').select('last').executeTakeFirst();
  return String(head!.last);
}

/** The events after `after` as [type, hash]. */
async function eventsAfter(after: string): Promise<[string, string][]> {
  return (await changesPage(t.app, { after, limit: '1000' })).events.map((e) => [e.type, e.hash]);
}

async function meta(hash: string): Promise<Record<string, unknown>> {
  const res = await request(t.app).get(`${BASE}/asset/${hash}/meta`).expect(200);
  return (res.body as { data: Record<string, unknown> }).data;
}

async function pathOf(hash: string): Promise<string> {
  const row = await t.index.db
    .selectFrom('asset')
    .select('path')
    .where('hash', '=', hash)
    .executeTakeFirstOrThrow();
  return row.path;
}

async function keptCopies(): Promise<number> {
  const rows = await t.index.db
    .selectFrom('asset_rebuild_before' as never)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(rows.n);
}

emptyBeforeEach(t);

describe('a hard rebuild (the index emptied, every file indexed again)', () => {
  it('tells only what changed: nothing for assets that come back as they were, asset.purged for those whose file is gone', async () => {
    const kept = await ingestFile(t.app, 'kept', 'kept.txt');
    await request(t.app)
      .patch(`${BASE}/asset/${kept.hash}`)
      .send({ tags: ['x'] })
      .expect(200);
    const trashed = await ingestFile(t.app, 'trashed', 'trashed.txt');
    await request(t.app).delete(`${BASE}/asset/${trashed.hash}`).expect(200);
    const gone = await ingestFile(t.app, 'gone', 'gone.txt');
    await removeContentBehindItsBack(t, await pathOf(gone.hash));
    // A file whose row went missing comes back: that is a new asset to the feed.
    const found = await storeAsset(t, 'found again', { tags: ['f'] });
    await t.index.db.deleteFrom('asset').where('hash', '=', found.row.hash).execute();
    // A row that says other than its file: the rebuild believes the file, and says so.
    const differs = await storeAsset(t, 'trashed on disk', { is_trashed: true });
    await t.index.db
      .updateTable('asset')
      .set({ is_trashed: false })
      .where('hash', '=', differs.row.hash)
      .execute();
    const keptBefore = await meta(kept.hash);
    const trashedBefore = await meta(trashed.hash);
    const cursor = await lastPosition();

    const res = await request(t.app).post(`${BASE}/admin/rebuild?mode=hard`).set(jobAuth);
    expect(res.status).toBe(200);
    expect((res.body as { data: object }).data).toMatchObject({
      mode: 'hard',
      scanned: 4,
      indexed: 4,
      errors: 0,
    });
    expect((await eventsAfter(cursor)).sort()).toEqual(
      [
        ['asset.created', found.row.hash],
        ['asset.trashed', differs.row.hash],
        ['asset.purged', gone.hash],
      ].sort(),
    );
    // The purge comes last: once every file was seen.
    expect((await eventsAfter(cursor)).at(-1)).toEqual(['asset.purged', gone.hash]);
    expect(await meta(kept.hash)).toEqual(keptBefore);
    expect(await meta(trashed.hash)).toEqual(trashedBefore);
    await request(t.app).get(`${BASE}/asset/${gone.hash}/meta`).expect(404);
    expect(await keptCopies()).toBe(0);

    // Another hard rebuild over the same files: nothing changed, no event.
    const again = await lastPosition();
    await request(t.app).post(`${BASE}/admin/rebuild?mode=hard`).set(jobAuth).expect(200);
    expect(await eventsAfter(again)).toEqual([]);
  });

  it('cut off after emptying the index, is completed by the next rebuild without telling anything twice', async () => {
    const a = await ingestFile(t.app, 'a', 'a.txt');
    const b = await ingestFile(t.app, 'b', 'b.txt');
    await removeContentBehindItsBack(t, await pathOf(b.hash));
    const cursor = await lastPosition();
    // What the rebuild does first, then the process dies (the copies stay in the database).
    await deleteAllAssets(t.index.db);
    expect(await keptCopies()).toBe(2);
    expect(await eventsAfter(cursor)).toEqual([]);
    await request(t.app).post(`${BASE}/admin/rebuild`).set(jobAuth).expect(200);
    expect(await eventsAfter(cursor)).toEqual([['asset.purged', b.hash]]);
    expect((await meta(a.hash)).hash).toBe(a.hash);
    expect(await keptCopies()).toBe(0);
  });
});

describe('what the store derives on its own', () => {
  it('is no event: the backfill job, a scrub filling in the digest, a soft rebuild, a thumbnail', async () => {
    const jpeg = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#c33' } })
      .jpeg()
      .toBuffer();
    // An image as stored before its facts and digest were kept.
    const old = await storeAsset(t, jpeg, { mime_type: 'image/jpeg', ext: 'jpg' });
    expect(await meta(old.row.hash)).toMatchObject({ width: null, height: null });
    const cursor = await lastPosition();

    const backfill = await untilEnded(t.app, (await startJob(t.app, { kind: 'backfill' })).id);
    expect(backfill).toMatchObject({ status: 'done', result: { probed: 1, images: 1 } });
    await request(t.app).post(`${BASE}/admin/verify`).set(jobAuth).expect(200);
    await request(t.app).post(`${BASE}/admin/rebuild`).set(jobAuth).expect(200);
    await request(t.app).get(`${BASE}/asset/${old.row.hash}/thumb/16/16`).expect(200);

    // Each did its work…
    expect(await meta(old.row.hash)).toMatchObject({ size: jpeg.length, width: 40, height: 20 });
    const row = await t.index.db
      .selectFrom('asset')
      .select('content_sha256')
      .where('hash', '=', old.row.hash)
      .executeTakeFirstOrThrow();
    expect(row.content_sha256).toMatch(/^[0-9a-f]{64}$/);
    // …and the feed has nothing to tell.
    expect(await eventsAfter(cursor)).toEqual([]);
  });
});
