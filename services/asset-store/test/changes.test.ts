import { sql, type Kysely } from 'kysely';
import { testDatabaseMode } from '@svc/testing';
import request from 'supertest';
import { createApp } from '../src/app.js';
import type { Database } from '../src/db/database.js';
import { ingestData, ingestFile } from './asset-helpers.js';
import { changesPage, listening, SseReader } from './change-helpers.js';
import { insertAssetRow } from './factories.js';
import { useTestApp } from './test-app.js';

/** Two transactions at once need a server (the embedded database has one connection). */
const onServer = testDatabaseMode() === 'postgres' ? it : it.skip;

const ADMIN = 'changes-admin-token';
const t = useTestApp('changes', { admin_token: ADMIN });

const meta = async (hash: string) =>
  (
    (await request(t.app).get(`/api/v1/can/0/asset/${hash}/meta`).expect(200)).body as {
      data: object;
    }
  ).data;

/** The feed's last position, read from the head row. */
async function lastPosition(): Promise<number> {
  const head = await t.index.db.selectFrom('asset_event_head').select('last').executeTakeFirst();
  return Number(head!.last);
}

/** The `asset_count` slot a connection's inserts add to (`20261126190100_asset_count_slots`). */
async function countSlot(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db);
  return rows[0]!.pid % 32;
}

/**
 * Runs `fn` on a connection that counts in another slot than `busy`: on the same slot an
 * insert waits for the held transaction's count row (1 run in 32 with any connection).
 * A connection on `busy` is kept while the next is taken, so the pool hands out another.
 */
async function onOtherCountSlot<T>(
  busy: number,
  fn: (db: Kysely<Database>) => Promise<T>,
): Promise<T> {
  return t.index.db
    .connection()
    .execute(async (db) => ((await countSlot(db)) === busy ? onOtherCountSlot(busy, fn) : fn(db)));
}

describe('GET /changes', () => {
  it('shows every change to an asset as an event, in commit order, with the record after it', async () => {
    const start = String(await lastPosition());
    const { hash } = await ingestData(t.app, { data: { n: 1 }, tags: 'a' });
    const created = await meta(hash);
    await request(t.app)
      .patch(`/api/v1/can/0/asset/${hash}`)
      .send({ tags: ['a', 'b'] })
      .expect(200);
    const updated = await meta(hash);
    await request(t.app).delete(`/api/v1/can/0/asset/${hash}`).expect(200);
    const trashed = await meta(hash);
    await request(t.app).post(`/api/v1/can/0/asset/${hash}/restore`).expect(200);
    // The verifier's finding and a later repair are the same row updates it makes.
    await t.index.db
      .updateTable('asset')
      .set({ is_corrupted: true })
      .where('hash', '=', hash)
      .execute();
    const corrupted = await meta(hash);
    await t.index.db
      .updateTable('asset')
      .set({ is_corrupted: false })
      .where('hash', '=', hash)
      .execute();
    await request(t.app)
      .delete(`/api/v1/can/0/admin/asset/${hash}`)
      .set('Authorization', `Bearer ${ADMIN}`)
      .expect(200);

    const res = await request(t.app)
      .get('/api/v1/can/0/changes')
      .query({ after: start })
      .expect(200);
    const events = (res.body as { data: { events: { id: string; at: number }[] } }).data.events;
    const base = Number(start);
    expect(res.body).toEqual({
      status: 'success',
      data: {
        events: [
          ['asset.created', created],
          ['asset.updated', updated],
          ['asset.trashed', trashed],
          ['asset.restored', updated],
          ['asset.corrupted', corrupted],
          ['asset.repaired', updated],
          ['asset.purged', null],
        ].map(([type, data], i) => ({
          id: String(base + i + 1),
          type,
          hash,
          at: events[i]!.at,
          data,
        })),
        next: String(base + 7),
      },
    });
    for (const e of events) expect(Math.abs(e.at - Date.now())).toBeLessThan(60_000);
  });

  it('pages with limit and next, from the oldest kept without a cursor', async () => {
    const first = await lastPosition();
    for (let i = 0; i < 5; i++) await ingestFile(t.app, `page ${i}`);
    const oldest = await changesPage(t.app, { limit: '1' });
    expect(oldest.events).toHaveLength(1);
    expect(Number(oldest.events[0]!.id)).toBeLessThanOrEqual(first + 1);

    const one = await changesPage(t.app, { after: String(first), limit: '2' });
    expect(one.events.map((e) => e.id)).toEqual([String(first + 1), String(first + 2)]);
    expect(one.next).toBe(String(first + 2));
    const two = await changesPage(t.app, { after: one.next, limit: '100' });
    expect(two.events.map((e) => e.id)).toEqual([first + 3, first + 4, first + 5].map(String));
    const none = await changesPage(t.app, { after: two.next });
    expect(none).toEqual({ events: [], next: two.next });
  });

  it('refuses a cursor or limit it did not give (400 naming the parameter)', async () => {
    for (const [query, error] of [
      [{ after: 'abc' }, 'invalid after: expected a cursor given by the feed'],
      [{ after: '-1' }, 'invalid after: expected a cursor given by the feed'],
      [{ limit: '0' }, 'invalid limit: expected an integer from 1 to 1000'],
      [{ limit: '1001' }, 'invalid limit: expected an integer from 1 to 1000'],
    ] as const) {
      const res = await request(t.app).get('/api/v1/can/0/changes').query(query).expect(400);
      expect(res.body).toEqual({ status: 'error', error });
    }
  });

  onServer(
    'numbers events in commit order: a transaction that commits later comes later, with no hole',
    async () => {
      const before = await lastPosition();
      let releaseFirst!: () => void;
      const held = new Promise<void>((resolve) => (releaseFirst = resolve));
      let firstInserted!: () => void;
      const inserted = new Promise<void>((resolve) => (firstInserted = resolve));
      let slowSlot = -1;
      // Written first, committed last.
      const slow = t.index.db.transaction().execute(async (trx) => {
        slowSlot = await countSlot(trx);
        await insertAssetRow(trx, { application: 'slow' });
        firstInserted();
        await held;
      });
      await inserted;
      await onOtherCountSlot(slowSlot, (db) => insertAssetRow(db, { application: 'fast' }));
      const seen = await changesPage(t.app, { after: String(before) });
      expect(seen.events.map((e) => e.data?.application)).toEqual(['fast']);
      releaseFirst();
      await slow;
      const after = await changesPage(t.app, { after: seen.next });
      expect(after.events.map((e) => [e.id, e.data?.application])).toEqual([
        [String(before + 2), 'slow'],
      ]);
    },
  );

  it('keeps no event of a change that rolled back, and none when the record did not change', async () => {
    const before = await lastPosition();
    await t.index.db
      .transaction()
      .execute(async (trx) => {
        await insertAssetRow(trx);
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    const row = await insertAssetRow(t.index.db);
    // The index's own columns (where the file is, its digest) are not the record.
    await t.index.db
      .updateTable('asset')
      .set({ content_sha256: 'ab'.repeat(32) })
      .where('hash', '=', row.hash)
      .execute();
    const page = await changesPage(t.app, { after: String(before) });
    expect(page.events.map((e) => [e.id, e.type, e.hash])).toEqual([
      [String(before + 1), 'asset.created', row.hash],
    ]);
  });

  it('answers 410 for a cursor older than changes_retention_days, and pages on from the oldest kept', async () => {
    const before = await lastPosition();
    await insertAssetRow(t.index.db);
    await insertAssetRow(t.index.db);
    await insertAssetRow(t.index.db);
    // The first two written 31 days ago (the default retention is 30).
    await sql`update asset_event set at = at - 31 * 86400000::bigint where pos in (${before + 1}, ${before + 2})`.execute(
      t.index.db,
    );
    expect(await t.runtime.services.changes.prune()).toBeGreaterThanOrEqual(2);

    const gone = await request(t.app)
      .get('/api/v1/can/0/changes')
      .query({ after: String(before) })
      .expect(410);
    expect(gone.body).toEqual({
      status: 'error',
      error: 'cursor too old: the events after it are no longer kept; start again without one',
    });
    const kept = await changesPage(t.app, { after: String(before + 2) });
    expect(kept.events.map((e) => e.id)).toEqual([String(before + 3)]);
    const oldest = await changesPage(t.app, { limit: '1' });
    expect(oldest.events.map((e) => e.id)).toEqual([String(before + 3)]);
  });
});

describe('GET /changes/stream', () => {
  it('streams new events as they commit, pings when quiet, and resumes after Last-Event-ID or ?after=', async () => {
    const server = await listening(createApp(t.runtime, { streamPingMs: 300 }));
    const url = `${server.url}/api/v1/can/0/changes/stream`;
    try {
      const start = await lastPosition();
      const live = await SseReader.open(url);
      expect(live.status).toBe(200);
      // The opening message names where the stream starts (a reconnect resumes there).
      await live.until((m) => m.length >= 1);
      expect(live.messages[0]).toEqual({ comment: 'stream of changes', id: String(start) });
      const a = await ingestData(t.app, { data: 'a' });
      const b = await ingestData(t.app, { data: 'b' });
      await live.until((m) => m.filter((x) => x.data).length >= 2);
      const [first, second] = live.events;
      expect(first!.event).toBe('asset.created');
      expect(JSON.parse(first!.data!) as unknown).toEqual({
        id: first!.id,
        type: 'asset.created',
        hash: a.hash,
        at: expect.any(Number) as unknown,
        data: await meta(a.hash),
      });
      expect((JSON.parse(second!.data!) as { hash: string }).hash).toBe(b.hash);
      await live.until((m) => m.some((x) => x.comment === 'ping'), 3_000);
      await live.close();

      // Resumed after the first: the second again, then what came meanwhile.
      const c = await ingestData(t.app, { data: 'c' });
      for (const resumed of [
        await SseReader.open(url, { 'Last-Event-ID': first!.id! }),
        await SseReader.open(`${url}?after=${first!.id!}`),
      ]) {
        await resumed.until((m) => m.filter((x) => x.data).length >= 2);
        expect(resumed.events.map((e) => (JSON.parse(e.data!) as { hash: string }).hash)).toEqual([
          b.hash,
          c.hash,
        ]);
        await resumed.close();
      }

      const bad = await SseReader.open(url, { 'Last-Event-ID': 'nope' });
      expect(bad.status).toBe(400);
    } finally {
      await server.close();
    }
  });

  it('serves more streams at once than an AbortSignal has listeners by default, each gets the event', async () => {
    const server = await listening(t.app);
    try {
      const url = `${server.url}/api/v1/can/0/changes/stream`;
      const readers = await Promise.all(Array.from({ length: 12 }, () => SseReader.open(url)));
      for (const r of readers) await r.until((m) => m.length >= 1);
      const a = await ingestData(t.app, { data: 'to twelve streams' });
      for (const r of readers) {
        await r.until((m) => m.some((x) => x.data?.includes(a.hash)));
        await r.close();
      }
    } finally {
      await server.close();
    }
  });
});
