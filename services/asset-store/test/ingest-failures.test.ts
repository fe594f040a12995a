import fs from 'node:fs';
import path from 'node:path';
import { testDatabaseMode } from '@svc/testing';
import request from 'supertest';
import type { AttributeStore } from '../src/storage/attributes.js';
import { FsBlobStore } from '../src/storage/fs/fs-blob-store.js';
import { rowCount, storedFiles, tmpFiles } from './asset-helpers.js';
import { insertAssetRow } from './factories.js';
import { useTestApp, variantApp } from './test-app.js';

const t = useTestApp('ingest_failures');

const nothingLeft = async () => {
  expect(storedFiles(t)).toEqual([]);
  expect(await rowCount(t)).toBe(0);
  expect(tmpFiles(t)).toEqual([]);
};

/** The test app's service with another attribute store, the writer's session as given. */
function appWith(attributes: AttributeStore, onServer: boolean) {
  const storage = { ...t.storage, attributes };
  return variantApp(t, {
    resources: {
      storage,
      blobs: new FsBlobStore(storage),
      index: onServer ? t.index : { ...t.index, pipelined: undefined },
    },
  }).app;
}

const eio = () => Promise.reject(Object.assign(new Error('disk says no'), { code: 'EIO' }));

// Both ways of committing a row after its file: inserted while the file is fsynced (an
// index on a server), or only once it is durable (always so on the embedded database).
const commitModes: [string, boolean][] =
  testDatabaseMode() === 'postgres'
    ? [
        ['inserted beside the fsyncs', true],
        ['inserted after them', false],
      ]
    : [['inserted after them', false]];

describe.each(commitModes)('a failure making a file durable (rows %s)', (_mode, onServer) => {
  afterEach(async () => {
    await t.index.db.deleteFrom('asset').execute();
    for (const name of storedFiles(t)) fs.rmSync(path.join(t.storageRoot, name));
  });

  it('answers 500 and keeps nothing when the attributes cannot be written', async () => {
    const broken: AttributeStore = {
      read: eio,
      write: eio,
      writeNew: eio,
      remove: () => Promise.resolve(),
    };
    const res = await request(appWith(broken, onServer))
      .post('/api/v1/can/0/ingest')
      .attach('file', Buffer.from('x'), 'a.txt')
      .expect(500);
    expect(res.body).toEqual({ status: 'error', error: 'internal error' });
    await nothingLeft();
  });

  it('fails only that ingest among concurrent ones sharing its batch', async () => {
    const real = t.storage.attributes;
    const failing: AttributeStore = {
      read: (file) => real.read(file),
      write: (file, attrs) => real.write(file, attrs),
      remove: (file) => real.remove(file),
      writeNew: (file, name, attrs) =>
        attrs.tags.includes('unlucky') ? eio() : real.writeNew(file, name, attrs),
    };
    const app = appWith(failing, onServer);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        request(app)
          .post('/api/v1/can/0/ingest')
          .field('tags', i === 7 ? 'unlucky' : 'fine')
          .attach('file', Buffer.from(`content ${i}`), `f${i}.txt`),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(
      Array.from({ length: 12 }, (_, i) => (i === 7 ? 500 : 200)),
    );
    const kept = results
      .filter((_, i) => i !== 7)
      .map((r) => (r.body as { data: { filename: string } }).data.filename)
      .sort();
    expect(storedFiles(t)).toEqual(kept);
    const rows = await t.index.db.selectFrom('asset').select('path').orderBy('path').execute();
    expect(rows.map((r) => r.path)).toEqual(kept);
    expect(tmpFiles(t)).toEqual([]);
  });

  it('never lets another connection see the row before the file is durable', async () => {
    const real = t.storage.attributes;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const slow: AttributeStore = {
      read: (file) => real.read(file),
      write: (file, attrs) => real.write(file, attrs),
      remove: (file) => real.remove(file),
      writeNew: async (file, name, attrs) => {
        await gate;
        await real.writeNew(file, name, attrs);
      },
    };
    const answer = request(appWith(slow, onServer))
      .post('/api/v1/can/0/ingest')
      .attach('file', Buffer.from('held back'), 'held.txt')
      .then((res) => res);
    // Long enough for the writer to have inserted the row, where it inserts early.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await rowCount(t)).toBe(0);
    expect(storedFiles(t)).toEqual([]);
    open();
    const res = await answer;
    expect(res.status).toBe(200);
    const { filename } = (res.body as { data: { filename: string } }).data;
    expect(storedFiles(t)).toEqual([filename]);
    expect(await rowCount(t)).toBe(1);
  });
});

describe("a rebuild that indexes an ingest's file before its row commits", () => {
  afterEach(async () => {
    await t.index.db.deleteFrom('asset').execute();
    for (const name of storedFiles(t)) fs.rmSync(path.join(t.storageRoot, name));
  });

  it('lets the ingest stand: 200, its file kept, one row naming it', async () => {
    const real = t.storage.attributes;
    // What a soft rebuild (or another instance's start-up recovery) would insert, from the
    // file's name and attributes, just before the ingest's own row goes in.
    const raced: AttributeStore = {
      read: (file) => real.read(file),
      write: (file, attrs) => real.write(file, attrs),
      remove: (file) => real.remove(file),
      writeNew: async (file, name, attrs) => {
        await real.writeNew(file, name, attrs);
        await insertAssetRow(t.index.db, {
          hash: attrs.hash,
          timestamp: attrs.timestamp,
          path: name,
        });
      },
    };
    const res = await request(appWith(raced, false))
      .post('/api/v1/can/0/ingest')
      .attach('file', Buffer.from('raced'), 'raced.txt')
      .expect(200);
    const { filename, hash } = (res.body as { data: { filename: string; hash: string } }).data;
    expect(storedFiles(t)).toEqual([filename]);
    expect(fs.readFileSync(path.join(t.storageRoot, filename), 'utf8')).toBe('raced');
    const rows = await t.index.db.selectFrom('asset').select(['hash', 'path']).execute();
    expect(rows).toEqual([{ hash, path: filename }]);
  });
});

describe('the database lost while an ingest is staged', () => {
  it('answers 503 in the database outage’s words, never a 400 that blames the body', async () => {
    // pg's words when the server goes away mid-query (a restart): a bare Error, no code.
    const lost = () => Promise.reject(new Error('Connection terminated unexpectedly'));
    const blobs = Object.assign(Object.create(t.blobs) as typeof t.blobs, { stage: lost });
    const { app } = variantApp(t, { resources: { blobs } });
    const res = await request(app)
      .post('/api/v1/can/0/ingest')
      .attach('file', Buffer.from('staged while the database went'), 'a.txt');
    expect({
      status: res.status,
      retryAfter: res.headers['retry-after'],
      body: res.body as unknown,
    }).toEqual({
      status: 503,
      retryAfter: '5',
      body: { status: 'error', error: 'the database is unavailable: try again shortly' },
    });
    await nothingLeft();
  });
});
