import { sql, type Kysely } from 'kysely';
import type { Database } from '../src/db/database.js';
import request from 'supertest';
import { insertAssetRow } from './factories.js';
import { useTestApp } from './test-app.js';

const t = useTestApp('asset_counts');

/** `pagination.total` of a list with this query. */
async function listedTotal(query: Record<string, string>): Promise<number> {
  const res = await request(t.app).get('/api/v1/can/0/list').query(query).expect(200);
  return (res.body as { data: { pagination: { total: number } } }).data.pagination.total;
}

/** Runs `work` in `n` transactions at once, each held open a moment: `n` connections. */
async function onConnections(
  n: number,
  work: (i: number, trx: Kysely<Database>) => Promise<void>,
): Promise<void> {
  await Promise.all(
    Array.from({ length: n }, (_, i) =>
      t.index.db.transaction().execute(async (trx) => {
        await sql`select pg_sleep(0.05)`.execute(trx);
        await work(i, trx);
      }),
    ),
  );
}

describe('list totals kept by the count triggers', () => {
  it('stay exact when rows come and go through several connections (each counts in its slot)', async () => {
    await onConnections(4, async (i, trx) => {
      for (let k = 0; k < 5; k++) {
        await insertAssetRow(trx, { application: `app-${i % 2}`, tags: ['counted'] });
      }
    });
    expect(await listedTotal({})).toBe(20);
    expect(await listedTotal({ application: 'app-0' })).toBe(10);
    expect(await listedTotal({ tags: 'counted' })).toBe(20);

    // Trashed and deleted from other connections than the ones that inserted them.
    const rows = await t.index.db.selectFrom('asset').select('hash').orderBy('hash').execute();
    await onConnections(2, async (i, trx) => {
      const mine = rows
        .filter((_, k) => k % 2 === i)
        .slice(0, 3)
        .map((r) => r.hash);
      await trx.updateTable('asset').set({ is_trashed: true }).where('hash', 'in', mine).execute();
    });
    await t.index.db
      .deleteFrom('asset')
      .where('application', '=', 'app-1')
      .where('is_trashed', '=', false)
      .execute();
    const truth = await t.index.db
      .selectFrom('asset')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('is_trashed', '=', false)
      .executeTakeFirstOrThrow();
    expect(await listedTotal({})).toBe(Number(truth.n));
    expect(await listedTotal({ include_trashed: 'true' })).toBe(
      (await t.index.db.selectFrom('asset').select('hash').execute()).length,
    );
  });
});
