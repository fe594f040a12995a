import { testDatabaseMode } from '@svc/testing';
import { sql } from 'kysely';
import request from 'supertest';
import {
  removeAllAssetsBehindItsBack,
  rowCount,
  stagedLeftovers,
  storedAssets,
  storedSidecars,
} from './asset-helpers.js';
import { useTestApp } from './test-app.js';

// Ingests the index fails after the upload arrived: nothing of the file system adapter, so
// these run on disk and on S3 (ingest-failures.test.ts injects the file system's failures).

const t = useTestApp('ingest_index_failures');

const nothingLeft = async () => {
  expect(await storedAssets(t)).toEqual([]);
  expect(await rowCount(t)).toBe(0);
  expect(await stagedLeftovers(t)).toEqual([]);
};

// Skipped on the embedded database: the index writer has its own connection only on a
// PostgreSQL server (PGlite is one connection), and these tests break that connection.
const onServerOnly = testDatabaseMode() === 'postgres' ? describe : describe.skip;

describe('a failure after the upload arrived', () => {
  it('answers 500 and keeps no file, attributes or sidecar when the index refuses the row', async () => {
    await sql`
      create function refuse_asset() returns trigger language plpgsql as
      $$ begin raise exception 'index refuses'; end $$
    `.execute(t.index.db);
    await sql`create trigger refuse before insert on asset for each row execute function refuse_asset()`.execute(
      t.index.db,
    );
    try {
      const res = await request(t.app)
        .post('/api/v1/can/0/ingest')
        .field('description', 'd'.repeat(16_384))
        .attach('file', Buffer.from('x'), 'a.txt')
        .expect(500);
      expect(res.body).toEqual({ status: 'error', error: 'internal error' });
      const data = await request(t.app)
        .post('/api/v1/can/0/ingest/data')
        .send({ data: 1 })
        .expect(500);
      expect(data.body).toEqual({ status: 'error', error: 'internal error' });
      await nothingLeft();
      expect(await storedSidecars(t)).toEqual([]);
    } finally {
      await sql`drop trigger refuse on asset`.execute(t.index.db);
    }
  });

  it('fails only the ingest whose row the index refuses, among concurrent ones', async () => {
    await sql`
      create function refuse_tagged() returns trigger language plpgsql as
      $$ begin
        if 'refused' = any(new.tags) then raise exception 'index refuses'; end if;
        return new;
      end $$
    `.execute(t.index.db);
    await sql`create trigger refuse before insert on asset for each row execute function refuse_tagged()`.execute(
      t.index.db,
    );
    try {
      // Concurrent rows share insert statements; the refused one must not take others along.
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          request(t.app)
            .post('/api/v1/can/0/ingest')
            .field('tags', i === 5 ? 'refused' : 'kept')
            .attach('file', Buffer.from(`content ${i}`), `f${i}.txt`),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(
        Array.from({ length: 12 }, (_, i) => (i === 5 ? 500 : 200)),
      );
      expect(results[5]!.body).toEqual({ status: 'error', error: 'internal error' });
      const kept = results
        .filter((_, i) => i !== 5)
        .map((r) => (r.body as { data: { filename: string } }).data.filename)
        .sort();
      expect(await storedAssets(t)).toEqual(kept);
      expect(await rowCount(t)).toBe(11);
      expect(await stagedLeftovers(t)).toEqual([]);
    } finally {
      await sql`drop trigger refuse on asset`.execute(t.index.db);
      await sql`drop function refuse_tagged()`.execute(t.index.db);
      await t.index.db.deleteFrom('asset').execute();
      await removeAllAssetsBehindItsBack(t);
    }
  });
});

onServerOnly("the index writer's connection", () => {
  afterEach(async () => {
    await t.index.db.deleteFrom('asset').execute();
    await removeAllAssetsBehindItsBack(t);
  });

  it('loses no ingest when the server drops it, and the next batches use a fresh one', async () => {
    const ingest = (i: number) =>
      request(t.app)
        .post('/api/v1/can/0/ingest')
        .attach('file', Buffer.from(`content ${i}`), `f${i}.txt`);
    expect((await ingest(0)).status).toBe(200);
    const writer = sql<{ pid: number }>`
      select pid from pg_stat_activity
      where datname = current_database() and application_name = 'asset_store pipelined'
    `;
    const [dropped] = (await writer.execute(t.index.db)).rows;
    expect(dropped).toBeDefined();
    await sql`select pg_terminate_backend(${dropped!.pid})`.execute(t.index.db);

    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => ingest(i + 1)));
    expect(results.map((r) => r.status)).toEqual(Array.from({ length: 12 }, () => 200));
    expect(await rowCount(t)).toBe(13);
    expect(await storedAssets(t)).toHaveLength(13);
    const [fresh] = (await writer.execute(t.index.db)).rows;
    expect(fresh!.pid).not.toBe(dropped!.pid);
  });
});
