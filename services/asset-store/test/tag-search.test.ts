import { sql } from 'kysely';
import request from 'supertest';
import { upsertAsset } from '../src/admin/rebuild.repository.js';
import type { AssetRow } from '../src/assets/asset.table.js';
import { insertAssetRow } from './factories.js';
import { useTestApp } from './test-app.js';

const t = useTestApp('tag_search');
beforeEach(async () => {
  await t.index.db.deleteFrom('asset').execute();
});

/**
 * Searches by tag read the tag index (`asset_tag`) that triggers keep beside the asset
 * table, whenever a tag is the rarest filter. These tests change assets every way the
 * service does and check each tag search against the table itself.
 */
const QUERIES: Record<string, string | number>[] = [
  { tags: 'red' },
  { tags: 'red,blue' },
  { tags: 'red', application: 'cam' },
  // Here the user is rarer than the tag, so the asset table answers: same results.
  { tags: 'blue', user: 'ann' },
  { tags: 'blue', mime_type: 'image/png', order: 'asc', limit: 3, offset: 1 },
];

interface Expected {
  hashes: string[];
  total: number;
}

/** What a query must return, computed from every row of the table. */
async function truth(query: Record<string, string | number>): Promise<Expected> {
  const all = await t.index.db.selectFrom('asset').selectAll().execute();
  const wanted = String(query.tags).split(',');
  const matches = all.filter(
    (r) =>
      !r.is_trashed &&
      !r.is_corrupted &&
      wanted.every((tag) => r.tags.includes(tag)) &&
      (query.application === undefined || r.application === query.application) &&
      (query.user === undefined || r.user === query.user) &&
      (query.mime_type === undefined || r.mime_type === query.mime_type),
  );
  const asc = query.order === 'asc';
  const sorted = matches
    .filter((r) => query.offset_time === undefined || r.timestamp < Number(query.offset_time))
    .sort((a, b) => (asc ? 1 : -1) * (a.timestamp - b.timestamp));
  const offset = Number(query.offset ?? 0);
  const page = sorted.slice(offset, offset + Number(query.limit ?? 50));
  // The total counts every match: the page window (offset_time included) does not narrow it.
  return { hashes: page.map((r) => r.hash), total: matches.length };
}

async function expectSearchesMatchTable(extra: Record<string, string | number>[] = []) {
  for (const query of [...QUERIES, ...extra]) {
    const res = await request(t.app).get('/api/v1/can/0/search').query(query).expect(200);
    const body = res.body as { data: { items: { hash: string }[]; pagination: { total: number } } };
    expect({
      query,
      hashes: body.data.items.map((i) => i.hash),
      total: body.data.pagination.total,
    }).toEqual({ query, ...(await truth(query)) });
  }
}

async function seed(): Promise<AssetRow[]> {
  const made: AssetRow[] = [];
  for (let i = 0; i < 16; i++) {
    made.push(
      await insertAssetRow(t.index.db, {
        application: i % 4 === 0 ? null : `app${i % 3}`,
        user: i % 5 === 0 ? 'ann' : `u${i}`,
        mime_type: i % 2 ? 'image/png' : 'text/plain',
        tags: [['red'], ['red', 'blue'], ['blue', 'green'], []][i % 4]!,
      }),
    );
  }
  await t.index.db
    .updateTable('asset')
    .set({ application: 'cam' })
    .where('user', '=', 'u1')
    .execute();
  return made;
}

describe('search by tag', () => {
  it('finds exactly what the table holds after inserts', async () => {
    const made = await seed();
    await expectSearchesMatchTable([{ tags: 'red', offset_time: made[9]!.timestamp }]);
  });

  it('follows trashing, corruption and their undoing', async () => {
    const made = await seed();
    const db = t.index.db;
    await db
      .updateTable('asset')
      .set({ is_trashed: true })
      .where('hash', '=', made[1]!.hash)
      .execute();
    await db.updateTable('asset').set({ is_corrupted: true }).where('user', '=', 'ann').execute();
    await expectSearchesMatchTable();
    await db.updateTable('asset').set({ is_trashed: false, is_corrupted: false }).execute();
    await expectSearchesMatchTable();
  });

  it('follows edits of tags, application, user and MIME type, one row or many', async () => {
    const made = await seed();
    const db = t.index.db;
    await db
      .updateTable('asset')
      .set({ tags: ['blue'] })
      .where('hash', '=', made[0]!.hash)
      .execute();
    await db
      .updateTable('asset')
      .set({ tags: ['red', 'blue', 'red'], application: 'cam', user: 'ann' })
      .where('mime_type', '=', 'text/plain')
      .execute();
    await db
      .updateTable('asset')
      .set({ mime_type: 'image/png' })
      .where('user', '=', 'u5')
      .execute();
    // An edit of nothing the tag index holds leaves it alone.
    await db.updateTable('asset').set({ description: 'seen' }).execute();
    await expectSearchesMatchTable();
  });

  it('follows deletes, a rebuild upsert over existing rows, and an emptied index', async () => {
    const made = await seed();
    const db = t.index.db;
    await db.deleteFrom('asset').where('hash', 'in', [made[1]!.hash, made[2]!.hash]).execute();
    await upsertAsset(db, { ...made[5]!, tags: ['red'], is_trashed: false });
    await upsertAsset(db, { ...made[1]!, tags: ['red', 'blue'], application: 'cam' });
    await expectSearchesMatchTable();
    await sql`truncate asset`.execute(db);
    expect(await db.selectFrom('asset_tag').selectAll().execute()).toEqual([]);
    await expectSearchesMatchTable();
  });
});
