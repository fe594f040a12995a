import fs from 'node:fs';
import path from 'node:path';
import { createLogger } from '@svc/envelope';
import { sql } from 'kysely';
import request from 'supertest';
import { createApp } from '../src/app.js';
import type { AttributeStore } from '../src/storage/attributes.js';
import { rowCount, storedFiles, tmpFiles } from './asset-helpers.js';
import { createTestApp, type TestApp } from './test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp('ingest_failures');
});
afterAll(async () => {
  await t.close();
});

const nothingLeft = async () => {
  expect(storedFiles(t)).toEqual([]);
  expect(await rowCount(t)).toBe(0);
  expect(tmpFiles(t)).toEqual([]);
};

describe('a failure after the upload arrived', () => {
  it('answers 500 and keeps nothing when the attributes cannot be written', async () => {
    const eio = () => Promise.reject(Object.assign(new Error('disk says no'), { code: 'EIO' }));
    const broken: AttributeStore = {
      read: eio,
      write: eio,
      writeNew: eio,
      remove: () => Promise.resolve(),
    };
    const app = createApp({
      config: t.config,
      storage: { layout: t.storage.layout, attributes: broken },
      clock: Date.now,
      db: t.index.db,
      ping: t.index.ping,
      logger: createLogger('t', 'silent'),
      version: '0.1.0',
    });
    const res = await request(app)
      .post('/api/v1/can/0/ingest')
      .attach('file', Buffer.from('x'), 'a.txt')
      .expect(500);
    expect(res.body).toEqual({ status: 'error', error: 'internal error' });
    await nothingLeft();
  });

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
      expect(storedFiles({ ...t, storageRoot: t.storage.layout.meta })).toEqual([]);
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
      expect(storedFiles(t)).toEqual(kept);
      expect(await rowCount(t)).toBe(11);
      expect(tmpFiles(t)).toEqual([]);
    } finally {
      await sql`drop trigger refuse on asset`.execute(t.index.db);
      await sql`drop function refuse_tagged()`.execute(t.index.db);
      await t.index.db.deleteFrom('asset').execute();
      for (const name of storedFiles(t)) fs.rmSync(path.join(t.storageRoot, name));
    }
  });
});
