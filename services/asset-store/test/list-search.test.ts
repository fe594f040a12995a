import request from 'supertest';
import type { AssetRow } from '../src/assets/asset.table.js';
import { ingestData } from './asset-helpers.js';
import { insertAssetRow } from './factories.js';
import { useTestApp } from './test-app.js';

const t = useTestApp('list_search');
beforeEach(async () => {
  await t.index.db.deleteFrom('asset').execute();
});

const BASE = '/api/v1/can/0';

function get(path: string, query: Record<string, string | number> = {}) {
  return request(t.app).get(`${BASE}${path}`).query(query);
}

interface PageBody {
  status: 'success';
  data: {
    items: { hash: string; timestamp: number }[];
    pagination: { limit: number; offset: number; total: number };
  };
}

/** A page that must be a 200; its body typed for the assertions. */
async function page(path: string, query: Record<string, string | number> = {}): Promise<PageBody> {
  const res = await get(path, query).expect(200);
  return res.body as PageBody;
}

function hashes(body: PageBody): string[] {
  return body.data.items.map((i) => i.hash);
}

async function rows(n: number, fields: Parameters<typeof insertAssetRow>[1] = {}) {
  const made: AssetRow[] = [];
  for (let i = 0; i < n; i++) made.push(await insertAssetRow(t.index.db, fields));
  return made;
}

describe('GET /list', () => {
  it('shows the full record of each asset, newest first, with the exact total', async () => {
    const [old] = await rows(1, {
      mime_type: 'image/png',
      application: 'cam',
      user: 'ann',
      tags: ['a', 'b'],
      description: 'a photo',
      human_filename: 'p.png',
      human_path: 'trip/day1',
    });
    const [fresh] = await rows(1);
    const res = await page('/list');
    expect(res).toEqual({
      status: 'success',
      data: {
        items: [
          {
            hash: fresh!.hash,
            mime_type: 'application/octet-stream',
            tags: [],
            timestamp: fresh!.timestamp,
            is_trashed: false,
            is_corrupted: false,
            size: 0,
            width: null,
            height: null,
            taken_at: null,
          },
          {
            hash: old!.hash,
            mime_type: 'image/png',
            application: 'cam',
            user: 'ann',
            tags: ['a', 'b'],
            description: 'a photo',
            human_filename: 'p.png',
            human_path: 'trip/day1',
            timestamp: old!.timestamp,
            is_trashed: false,
            is_corrupted: false,
            size: 0,
            width: null,
            height: null,
            taken_at: null,
          },
        ],
        pagination: { limit: 50, offset: 0, total: 2 },
      },
    });
  });

  it('answers an empty store with an empty page', async () => {
    const res = await page('/list');
    expect(res).toEqual({
      status: 'success',
      data: { items: [], pagination: { limit: 50, offset: 0, total: 0 } },
    });
  });

  it('hides trashed and corrupted assets unless asked for, and counts what it shows', async () => {
    const [plain] = await rows(1);
    const [trashed] = await rows(1, { is_trashed: true });
    const [corrupted] = await rows(1, { is_corrupted: true });
    const [both] = await rows(1, { is_trashed: true, is_corrupted: true });

    const def = await page('/list');
    expect(hashes(def)).toEqual([plain!.hash]);
    expect(def.data.pagination.total).toBe(1);

    const withTrash = await page('/list', { include_trashed: 'true' });
    expect(hashes(withTrash)).toEqual([trashed!.hash, plain!.hash]);
    expect(withTrash.data.pagination.total).toBe(2);

    const withCorrupt = await page('/list', { include_corrupted: '1' });
    expect(hashes(withCorrupt)).toEqual([corrupted!.hash, plain!.hash]);
    expect(withCorrupt.data.pagination.total).toBe(2);

    const all = await page('/list', { include_trashed: '1', include_corrupted: 'true' });
    expect(hashes(all)).toEqual([both!.hash, corrupted!.hash, trashed!.hash, plain!.hash]);
    expect(all.data.pagination.total).toBe(4);

    const off = await page('/list', { include_trashed: 'false', include_corrupted: '0' });
    expect(hashes(off)).toEqual([plain!.hash]);
  });

  it('pages with limit and offset in either order; the total ignores the page', async () => {
    const made = (await rows(7)).map((r) => r.hash);
    const desc = await page('/list', { limit: 3, offset: 2 });
    expect(hashes(desc)).toEqual(made.slice().reverse().slice(2, 5));
    expect(desc.data.pagination).toEqual({ limit: 3, offset: 2, total: 7 });

    const asc = await page('/list', { limit: 3, offset: 5, order: 'asc' });
    expect(hashes(asc)).toEqual(made.slice(5));
    expect(asc.data.pagination).toEqual({ limit: 3, offset: 5, total: 7 });

    const past = await page('/list', { offset: 100 });
    expect(past.data).toEqual({ items: [], pagination: { limit: 50, offset: 100, total: 7 } });
  });

  it('takes offset_time as an exclusive cursor, then offset within what is left', async () => {
    const made = await rows(6);
    const mid = made[3]!.timestamp;
    const before = await page('/list', { offset_time: mid });
    expect(hashes(before)).toEqual([made[2]!.hash, made[1]!.hash, made[0]!.hash]);
    expect(before.data.pagination.total).toBe(6);

    const after = await page('/list', { offset_time: mid, order: 'asc' });
    expect(hashes(after)).toEqual([made[4]!.hash, made[5]!.hash]);

    const skipped = await page('/list', { offset_time: mid, offset: 1, limit: 1 });
    expect(hashes(skipped)).toEqual([made[1]!.hash]);
    expect(skipped.data.pagination).toEqual({ limit: 1, offset: 1, total: 6 });
  });

  it('filters by application', async () => {
    const [a] = await rows(1, { application: 'alpha' });
    await rows(2, { application: 'beta' });
    await rows(1);
    const res = await page('/list', { application: 'alpha' });
    expect(hashes(res)).toEqual([a!.hash]);
    expect(res.data.pagination.total).toBe(1);
  });

  it.each([
    ['limit', '0', 'invalid limit: expected an integer from 1 to 1000'],
    ['limit', '1001', 'invalid limit: expected an integer from 1 to 1000'],
    ['limit', '2.5', 'invalid limit: expected an integer from 1 to 1000'],
    ['limit', 'ten', 'invalid limit: expected an integer from 1 to 1000'],
    ['offset', '-1', 'invalid offset: expected an integer >= 0'],
    [
      'offset',
      '9007199254740992',
      'invalid offset: expected an integer from 0 to 9007199254740991',
    ],
    ['offset_time', 'yesterday', 'invalid offset_time: expected an integer >= 0'],
    ['order', 'up', 'invalid order: expected asc or desc'],
    ['include_trashed', 'yes', 'invalid include_trashed: expected true, false, 1 or 0'],
    ['include_corrupted', 'TRUE', 'invalid include_corrupted: expected true, false, 1 or 0'],
  ])('refuses %s=%s with a 400 naming the parameter', async (name, value, message) => {
    const res = await get('/list', { [name]: value }).expect(400);
    expect(res.body).toEqual({ status: 'error', error: message });
  });

  it('refuses a parameter given twice', async () => {
    const res = await request(t.app).get(`${BASE}/list?limit=1&limit=2`).expect(400);
    expect(res.body).toEqual({ status: 'error', error: 'invalid limit: expected a single value' });
  });

  it('answers another method with 405 and another container with 404', async () => {
    const res = await request(t.app).post(`${BASE}/list`).expect(405);
    expect(res.body).toEqual({ status: 'error', error: 'method not allowed' });
    expect(res.headers.allow).toBe('GET, HEAD');
    await request(t.app).get('/api/v1/can/1/list').expect(404);
  });
});

describe('GET /search', () => {
  it('finds by hash prefix in either case, and by exact hash', async () => {
    const [a] = await rows(1, { hash: 'ab'.repeat(32) });
    const [b] = await rows(1, { hash: `abc${'0'.repeat(61)}` });
    await rows(1, { hash: 'cd'.repeat(32) });
    const prefix = await page('/search', { hash: 'AB' });
    expect(hashes(prefix)).toEqual([b!.hash, a!.hash]);
    expect(prefix.data.pagination.total).toBe(2);
    const exact = await page('/search', { hash: a!.hash.toUpperCase() });
    expect(hashes(exact)).toEqual([a!.hash]);
    const none = await page('/search', { hash: 'f' });
    expect(none.data).toEqual({ items: [], pagination: { limit: 50, offset: 0, total: 0 } });
  });

  it('bounds by start_time and end_time, both inclusive', async () => {
    const made = await rows(5);
    const res = await page('/search', {
      start_time: made[1]!.timestamp,
      end_time: made[3]!.timestamp,
    });
    expect(hashes(res)).toEqual([made[3]!.hash, made[2]!.hash, made[1]!.hash]);
    const from = await page('/search', { start_time: made[4]!.timestamp });
    expect(hashes(from)).toEqual([made[4]!.hash]);
    const until = await page('/search', { end_time: made[0]!.timestamp });
    expect(hashes(until)).toEqual([made[0]!.hash]);
  });

  it('needs every listed tag, trimming and ignoring empty and repeated ones', async () => {
    const [ab] = await rows(1, { tags: ['a', 'b'] });
    const [abc] = await rows(1, { tags: ['c', 'b', 'a'] });
    await rows(1, { tags: ['a'] });
    const res = await page('/search', { tags: ' a , b,,a' });
    expect(hashes(res)).toEqual([abc!.hash, ab!.hash]);
    expect(res.data.pagination.total).toBe(2);
    const one = await page('/search', { tags: 'c' });
    expect(hashes(one)).toEqual([abc!.hash]);
  });

  it.each([
    ['mime_type', 'image/png', 'image/jpeg'],
    ['user', 'ann', 'bob'],
    ['application', 'cam', 'scanner'],
  ])('matches %s exactly', async (field, wanted, other) => {
    const [hit] = await rows(1, { [field]: wanted });
    await rows(1, { [field]: other });
    await rows(1, { [field]: `${wanted}x` });
    const res = await page('/search', { [field]: wanted });
    expect(hashes(res)).toEqual([hit!.hash]);
    expect(res.data.pagination.total).toBe(1);
  });

  it('matches mime_type whatever its case, as it is stored lowercase', async () => {
    const [hit] = await rows(1, { mime_type: 'image/vnd.case-test' });
    await rows(1, { mime_type: 'image/png' });
    const res = await page('/search', { mime_type: 'Image/VND.Case-Test' });
    expect(hashes(res)).toEqual([hit!.hash]);
    expect(res.data.pagination.total).toBe(1);
  });

  it('combines every filter with AND', async () => {
    const fields = {
      hash: `ee${'1'.repeat(62)}`,
      mime_type: 'text/plain',
      user: 'ann',
      application: 'notes',
      tags: ['x', 'y'],
    };
    const [hit] = await rows(1, fields);
    await rows(1, { ...fields, hash: `ee${'2'.repeat(62)}`, user: 'bob' });
    await rows(1, { ...fields, hash: `ee${'3'.repeat(62)}`, tags: ['x'] });
    await rows(1, { ...fields, hash: `ee${'4'.repeat(62)}`, application: 'other' });
    await rows(1, { ...fields, hash: `ee${'5'.repeat(62)}`, mime_type: 'text/html' });
    await rows(1, { ...fields, hash: `ef${'6'.repeat(62)}` });
    await rows(1, { ...fields, hash: `ee${'7'.repeat(62)}`, is_trashed: true });
    const res = await page('/search', {
      hash: 'ee',
      mime_type: 'text/plain',
      user: 'ann',
      application: 'notes',
      tags: 'y,x',
      start_time: hit!.timestamp,
      end_time: hit!.timestamp + 100_000,
    });
    expect(hashes(res)).toEqual([hit!.hash]);
    expect(res.data.pagination.total).toBe(1);
    const trashedToo = await page('/search', { hash: 'ee', include_trashed: 'true', user: 'ann' });
    expect(trashedToo.data.pagination.total).toBe(5);
  });

  it('hides trashed and corrupted results unless asked for', async () => {
    const [plain] = await rows(1, { user: 'u' });
    const [trashed] = await rows(1, { user: 'u', is_trashed: true });
    const [corrupted] = await rows(1, { user: 'u', is_corrupted: true });
    expect(hashes(await page('/search', { user: 'u' }))).toEqual([plain!.hash]);
    const both = await page('/search', {
      user: 'u',
      include_trashed: 'true',
      include_corrupted: 'true',
      order: 'asc',
    });
    expect(hashes(both)).toEqual([plain!.hash, trashed!.hash, corrupted!.hash]);
    expect(both.data.pagination.total).toBe(3);
  });

  it('takes offset_time and offset like list', async () => {
    const made = await rows(5, { application: 'p' });
    const res = await page('/search', {
      application: 'p',
      offset_time: made[1]!.timestamp,
      order: 'asc',
      offset: 1,
      limit: 2,
    });
    expect(hashes(res)).toEqual([made[3]!.hash, made[4]!.hash]);
    expect(res.data.pagination).toEqual({ limit: 2, offset: 1, total: 5 });
  });

  it.each([
    ['hash', 'xyz', 'invalid hash: expected 1 to 64 hexadecimal characters'],
    ['hash', 'a'.repeat(65), 'invalid hash: expected 1 to 64 hexadecimal characters'],
    ['hash', '', 'invalid hash: expected 1 to 64 hexadecimal characters'],
    ['start_time', '-5', 'invalid start_time: expected an integer >= 0'],
    ['end_time', '1e3', 'invalid end_time: expected an integer >= 0'],
    [
      'start_time',
      '9223372036854775807',
      'invalid start_time: expected an integer from 0 to 9007199254740991',
    ],
    ['tags', 'ok,' + 't'.repeat(65), 'invalid tags: expected each tag to have 1-64 characters'],
    [
      'tags',
      Array.from({ length: 65 }, (_, i) => `t${i}`).join(','),
      'invalid tags: expected at most 64 tags',
    ],
    ['limit', '5000', 'invalid limit: expected an integer from 1 to 1000'],
    ['offset_time', '1.5', 'invalid offset_time: expected an integer >= 0'],
    ['order', 'newest', 'invalid order: expected asc or desc'],
    ['include_trashed', 'on', 'invalid include_trashed: expected true, false, 1 or 0'],
  ])('refuses %s=%s with a 400 naming the parameter', async (name, value, message) => {
    const res = await get('/search', { [name]: value }).expect(400);
    expect(res.body).toEqual({ status: 'error', error: message });
  });

  it.each([
    ['/list', 'application', 'invalid application: expected text without NUL characters'],
    ['/search', 'application', 'invalid application: expected text without NUL characters'],
    ['/search', 'user', 'invalid user: expected text without NUL characters'],
    ['/search', 'mime_type', 'invalid mime_type: expected text without NUL characters'],
    ['/search', 'tags', 'invalid tags: expected tags without NUL characters'],
  ])('%s refuses a %s holding a NUL character with 400', async (path, name, message) => {
    const res = await get(path, { [name]: 'ok\u0000' }).expect(400);
    expect(res.body).toEqual({ status: 'error', error: message });
  });
});

describe('pagination.total', () => {
  /** The truth, counted straight from the table. */
  async function counted(where: (row: AssetRow) => boolean): Promise<number> {
    const all = await t.index.db.selectFrom('asset').selectAll().execute();
    return all.filter(where).length;
  }

  it('stays exact through flag changes, edits, deletes and bulk statements', async () => {
    const db = t.index.db;
    for (let i = 0; i < 12; i++) {
      await insertAssetRow(db, {
        application: i % 3 === 0 ? null : `app${i % 2}`,
        user: `u${i % 4}`,
        mime_type: i % 2 ? 'image/png' : 'text/plain',
        tags: i % 5 === 0 ? [] : ['shared', `t${i % 3}`],
      });
    }
    await db.updateTable('asset').set({ is_trashed: true }).where('user', '=', 'u1').execute();
    await db.updateTable('asset').set({ is_corrupted: true }).where('user', '=', 'u2').execute();
    await db
      .updateTable('asset')
      .set({ tags: ['moved'], application: 'app9' })
      .where('user', '=', 'u3')
      .execute();
    await db
      .deleteFrom('asset')
      .where('mime_type', '=', 'text/plain')
      .where('user', '=', 'u0')
      .execute();

    const visible = (r: AssetRow) => !r.is_trashed && !r.is_corrupted;
    const cases: [Record<string, string>, (r: AssetRow) => boolean][] = [
      [{}, visible],
      [{ include_trashed: 'true' }, (r) => !r.is_corrupted],
      [{ include_corrupted: 'true' }, (r) => !r.is_trashed],
      [{ include_trashed: 'true', include_corrupted: 'true' }, () => true],
      [{ application: 'app1' }, (r) => visible(r) && r.application === 'app1'],
      [
        { application: 'app9', include_trashed: '1' },
        (r) => !r.is_corrupted && r.application === 'app9',
      ],
      [{ user: 'u2', include_corrupted: '1' }, (r) => !r.is_trashed && r.user === 'u2'],
      [{ mime_type: 'image/png' }, (r) => visible(r) && r.mime_type === 'image/png'],
      [{ tags: 'shared' }, (r) => visible(r) && r.tags.includes('shared')],
      [{ tags: 'moved' }, (r) => visible(r) && r.tags.includes('moved')],
      [
        { tags: 'shared,t1' },
        (r) => visible(r) && r.tags.includes('shared') && r.tags.includes('t1'),
      ],
      [
        { user: 'u0', mime_type: 'image/png' },
        (r) => visible(r) && r.user === 'u0' && r.mime_type === 'image/png',
      ],
    ];
    for (const [query, where] of cases) {
      const res = await page('/search', query);
      expect({ query, total: res.data.pagination.total }).toEqual({
        query,
        total: await counted(where),
      });
    }

    await db.deleteFrom('asset').execute();
    expect(
      (await page('/list', { include_trashed: '1', include_corrupted: '1' })).data.pagination.total,
    ).toBe(0);
    expect((await page('/search', { tags: 'shared' })).data.pagination.total).toBe(0);
  });
});

describe('cursor paging', () => {
  it.each(['desc', 'asc'] as const)(
    'walks every asset once in %s order while new ones arrive',
    async (order) => {
      const existing = (await rows(23)).map((r) => r.hash);
      const seen: string[] = [];
      let cursor: number | undefined;
      let arrivals = 0;
      const ingested: string[] = [];
      const stamps: number[] = [];
      for (;;) {
        const query: Record<string, string | number> = { limit: 5, order };
        if (cursor !== undefined) query.offset_time = cursor;
        const [res] = await Promise.all([
          page('/list', query),
          // Real ingests land during page requests, always newer than all others.
          arrivals < 12
            ? Promise.all([ingestData(t.app, { data: 1 }), ingestData(t.app, { data: 2 })]).then(
                (made) => {
                  arrivals += 2;
                  ingested.push(...made.map((m) => m.hash));
                },
              )
            : Promise.resolve(),
        ]);
        const items = res.data.items as { hash: string; timestamp: number }[];
        if (items.length === 0) break;
        seen.push(...items.map((i) => i.hash));
        stamps.push(...items.map((i) => i.timestamp));
        cursor = items[items.length - 1]!.timestamp;
      }
      expect(arrivals).toBe(12);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual(expect.arrayContaining(existing));
      const orderIn = seen.filter((h) => existing.includes(h));
      expect(orderIn).toEqual(order === 'asc' ? existing : existing.slice().reverse());
      const sorted = [...stamps].sort((a, b) => (order === 'asc' ? a - b : b - a));
      expect(stamps).toEqual(sorted);
      // Ascending, the cursor reaches everything added behind it.
      if (order === 'asc') expect(seen).toEqual(expect.arrayContaining(ingested));
    },
  );
});
