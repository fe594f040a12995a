import { sql } from 'kysely';
import request from 'supertest';
import type { AssetRow, NewAssetRow } from '../src/assets/asset.table.js';
import { assetPageQuery } from '../src/search/search.repository.js';
import { insertAssetRow } from './factories.js';
import { useTestApp } from './test-app.js';

/** `GET /search?sort=taken`: a timeline by date taken, else ingest time (issue 42). */
const t = useTestApp('search_sort');
beforeEach(async () => {
  await t.index.db.deleteFrom('asset').execute();
});

const BASE = '/api/v1/can/0';

function get(query: Record<string, string | number | string[]> = {}) {
  return request(t.app).get(`${BASE}/search`).query(query);
}

/** The record list and search give for a row `insertAssetRow` made. */
function record(row: AssetRow) {
  return {
    hash: row.hash,
    mime_type: row.mime_type,
    ...(row.application !== null && { application: row.application }),
    ...(row.human_filename !== null && { human_filename: row.human_filename }),
    tags: row.tags,
    timestamp: Number(row.timestamp),
    is_trashed: row.is_trashed,
    is_corrupted: row.is_corrupted,
    size: 0,
    width: null,
    height: null,
    taken_at: row.taken_at === null ? null : Number(row.taken_at),
  };
}

/** A whole success body: these rows in this order, and the pagination. */
function pageOf(rows: AssetRow[], pagination: { limit: number; offset: number; total: number }) {
  return { status: 'success', data: { items: rows.map(record), pagination } };
}

async function body(query: Record<string, string | number | string[]>): Promise<unknown> {
  return (await get(query).expect(200)).body as unknown;
}

const Y2017 = Date.UTC(2017, 6, 14);
const Y2020 = Date.UTC(2020, 8, 13);

/**
 * Ingested in this order (timestamps increasing), taken at other times: `b` in 2017, `d` and
 * `e` in the same millisecond of 2020 (a tie, broken by timestamp), `g` a moment after `a`
 * was stored; `a` and `c` without a date taken (their ingest time counts); `h` trashed.
 */
async function timeline() {
  const db = t.index.db;
  const add = (fields: Partial<NewAssetRow>) => insertAssetRow(db, fields);
  const a = await add({ application: 'cam', human_filename: 'beach-a.jpg', tags: ['trip'] });
  const b = await add({ taken_at: Y2017, application: 'cam', tags: ['trip'] });
  const c = await add({ human_filename: 'beach-c.jpg' });
  const d = await add({ taken_at: Y2020, application: 'cam', tags: ['trip'] });
  const e = await add({ taken_at: Y2020, human_filename: 'beach-e.jpg' });
  const g = await add({ taken_at: Number(a.timestamp) + 500, application: 'cam' });
  const h = await add({ is_trashed: true, application: 'cam', tags: ['trip'] });
  return { a, b, c, d, e, g, h };
}

describe('GET /search?sort=taken', () => {
  it('orders by date taken, else ingest time, newest first; ties by timestamp', async () => {
    const { a, b, c, d, e, g } = await timeline();
    expect(await body({ sort: 'taken' })).toEqual(
      pageOf([c, g, a, e, d, b], { limit: 50, offset: 0, total: 6 }),
    );
    expect(await body({ sort: 'taken', order: 'asc' })).toEqual(
      pageOf([b, d, e, a, g, c], { limit: 50, offset: 0, total: 6 }),
    );
  });

  it('leaves the default as it was: by timestamp, as sort=timestamp', async () => {
    const { a, b, c, d, e, g } = await timeline();
    const byTimestamp = pageOf([g, e, d, c, b, a], { limit: 50, offset: 0, total: 6 });
    expect(await body({})).toEqual(byTimestamp);
    expect(await body({ sort: 'timestamp' })).toEqual(byTimestamp);
    expect(
      await body({ sort: 'timestamp', order: 'asc', limit: 2, offset_time: c.timestamp }),
    ).toEqual(pageOf([d, e], { limit: 2, offset: 0, total: 6 }));
  });

  it('pages by offset, and by offset_time as a value of the sort key', async () => {
    const { a, b, c, d, e, g } = await timeline();
    const total = 6;
    expect(await body({ sort: 'taken', limit: 2 })).toEqual(
      pageOf([c, g], { limit: 2, offset: 0, total }),
    );
    expect(await body({ sort: 'taken', limit: 2, offset: 2 })).toEqual(
      pageOf([a, e], { limit: 2, offset: 2, total }),
    );
    expect(await body({ sort: 'taken', limit: 2, offset: 4 })).toEqual(
      pageOf([d, b], { limit: 2, offset: 4, total }),
    );
    // Strictly before `a`'s key (its timestamp: no date taken).
    expect(await body({ sort: 'taken', offset_time: a.timestamp })).toEqual(
      pageOf([e, d, b], { limit: 50, offset: 0, total }),
    );
    // Strictly after 2020's key: both assets taken then are left out.
    expect(await body({ sort: 'taken', order: 'asc', offset_time: Y2020 })).toEqual(
      pageOf([a, g, c], { limit: 50, offset: 0, total }),
    );
    // The documented exact step past a page ending inside a tie: one past the last key,
    // then `offset` skips the ones of that key already seen (`e`).
    const first = await body({ sort: 'taken', limit: 4 });
    expect(first).toEqual(pageOf([c, g, a, e], { limit: 4, offset: 0, total }));
    expect(await body({ sort: 'taken', limit: 4, offset_time: Y2020 + 1, offset: 1 })).toEqual(
      pageOf([d, b], { limit: 4, offset: 1, total }),
    );
    expect(
      await body({ sort: 'taken', order: 'asc', limit: 2, offset_time: Y2020 - 1, offset: 1 }),
    ).toEqual(pageOf([e, a], { limit: 2, offset: 1, total }));
  });

  it('combines with every kind of filter and the switches', async () => {
    const { a, b, c, d, e, g, h } = await timeline();
    expect(await body({ sort: 'taken', application: 'cam' })).toEqual(
      pageOf([g, a, d, b], { limit: 50, offset: 0, total: 4 }),
    );
    // One tag: by timestamp `asset_tag` would answer; by date taken, `asset` does.
    expect(await body({ sort: 'taken', tags: 'trip', limit: 2, offset: 1 })).toEqual(
      pageOf([d, b], { limit: 2, offset: 1, total: 3 }),
    );
    // `q` alone: by timestamp `asset_text` would answer.
    expect(await body({ sort: 'taken', q: 'beach' })).toEqual(
      pageOf([c, a, e], { limit: 50, offset: 0, total: 3 }),
    );
    expect(await body({ sort: 'taken', start_time: c.timestamp, order: 'asc' })).toEqual(
      pageOf([d, e, g, c], { limit: 50, offset: 0, total: 4 }),
    );
    expect(
      await body({
        sort: 'taken',
        application: 'cam',
        include_trashed: 'true',
        offset_time: g.timestamp,
      }),
    ).toEqual(pageOf([g, a, d, b], { limit: 50, offset: 0, total: 5 }));
    expect(
      await body({ sort: 'taken', application: 'cam', include_trashed: 'true', limit: 1 }),
    ).toEqual(pageOf([h], { limit: 1, offset: 0, total: 5 }));
  });

  it.each([
    [{ sort: 'newest' }],
    [{ sort: '' }],
    [{ sort: 'TAKEN' }],
    [{ sort: ['taken', 'timestamp'] }],
  ])('refuses %j with a 400 naming the parameter', async (query) => {
    const res = await get(query).expect(400);
    expect(res.body).toEqual({
      status: 'error',
      error: 'invalid sort: expected timestamp or taken',
    });
  });

  it('walks the visible rows in order from the asset_visible_taken index', async () => {
    await timeline();
    const plan = await t.index.db.transaction().execute(async (trx) => {
      // A handful of rows: left to itself the planner would rightly scan and sort them.
      await sql`set local enable_seqscan = off`.execute(trx);
      await sql`set local enable_sort = off`.execute(trx);
      const query = assetPageQuery(
        trx,
        { includeTrashed: false, includeCorrupted: false },
        { order: 'desc', sort: 'taken', limit: 50, offset: 0, offsetTime: Y2020 },
      );
      const rows = await query.explain<{ 'QUERY PLAN': string }>();
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
    expect(plan).toMatch(/Index Only Scan Backward using asset_visible_taken/);
  });
});
