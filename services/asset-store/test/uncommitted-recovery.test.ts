import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import type { Rebuilder } from '../src/admin/rebuild.service.js';
import { expectedHash, ingestFile, rowCount } from './asset-helpers.js';
import { createTestApp, type TestApp } from './test-app.js';

const BASE = '/api/v1/can/0';
const DAY_MS = 24 * 60 * 60 * 1000;

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp('uncommitted_recovery');
});
afterEach(async () => {
  await t.close();
});

/** The rebuilder the runtime ran at start, as a restart would run it again. */
function rebuilder(): Rebuilder {
  return t.runtime.services.rebuilder;
}

async function meta(hash: string): Promise<request.Response> {
  return request(t.app).get(`${BASE}/asset/${hash}/meta`);
}

describe('start-up recovery of ingests a crash cut off before their row was committed', () => {
  it('indexes a renamed file the index does not name, with the metadata its attributes hold', async () => {
    const cut = await ingestFile(t.app, 'cut off', 'cut.txt', {
      tags: 'a,b',
      description: 'before the crash',
      user: 'ann',
    });
    const kept = await ingestFile(t.app, 'committed', 'kept.txt');
    const record = (await meta(cut.hash)).body as unknown;
    // What a crash between the rename and the row's commit leaves: the file, no row.
    await t.index.db.deleteFrom('asset').where('hash', '=', cut.hash).execute();
    expect((await meta(cut.hash)).status).toBe(404);

    expect(await rebuilder().indexUncommitted()).toBe(1);
    expect((await meta(cut.hash)).body).toEqual(record);
    expect((await meta(kept.hash)).status).toBe(200);
    expect(await rowCount(t)).toBe(2);
    expect(await rebuilder().indexUncommitted()).toBe(0);
  });

  it('leaves names older than the newest row less a day to a rebuild', async () => {
    const newest = await ingestFile(t.app, 'newest', 'newest.txt');
    const timestamp = newest.timestamp - DAY_MS - 1;
    const hash = expectedHash('old', timestamp);
    const file = path.join(t.storageRoot, `${timestamp}_${hash}.txt`);
    fs.writeFileSync(file, 'old');
    await t.storage.attributes.write(file, {
      hash,
      timestamp,
      mime_type: 'text/plain',
      tags: [],
      is_trashed: false,
      is_corrupted: false,
    });

    expect(await rebuilder().indexUncommitted()).toBe(0);
    expect((await meta(hash)).status).toBe(404);
    expect(await rowCount(t)).toBe(1);
  });

  it('does nothing over an empty index, which the start-up rebuild fills instead', async () => {
    const stored = await ingestFile(t.app, 'only', 'only.txt');
    await t.index.db.deleteFrom('asset').execute();
    expect(await rebuilder().indexUncommitted()).toBe(0);
    expect((await meta(stored.hash)).status).toBe(404);
  });
});
