import { createLogger } from '@svc/envelope';
import { sql } from 'kysely';
import request from 'supertest';
import { attributesFromRow } from '../src/assets/asset.model.js';
import { insertAttributeIntent } from '../src/assets/attribute-intent.repository.js';
import { replayAttributeIntents } from '../src/assets/attribute-intents.js';
import type { BlobStore } from '../src/storage/blob-store.js';
import { storeAsset } from './factories.js';
import { createTestApp, variantApp, type TestApp } from './test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp('attribute_intents');
});
afterAll(async () => {
  await t.close();
});

const BASE = '/api/v1/can/0';
const logger = createLogger('t', 'silent');

async function intentCount(): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from asset_store.attribute_intent
  `.execute(t.index.db);
  return rows[0]!.n;
}

describe('attributes after a crash during PATCH, trash or restore', () => {
  it('a change leaves no intent behind once it commits', async () => {
    const { row } = await storeAsset(t, 'plain', { tags: ['a'] });
    await request(t.app)
      .patch(`${BASE}/asset/${row.hash}`)
      .send({ tags: ['b'] })
      .expect(200);
    await request(t.app).delete(`${BASE}/asset/${row.hash}`).expect(200);
    await request(t.app).post(`${BASE}/asset/${row.hash}/restore`).expect(200);
    expect(await intentCount()).toBe(0);
  });

  it('the start puts attributes a crash left ahead (even torn) back to the acknowledged row', async () => {
    const { row } = await storeAsset(t, 'torn', {
      tags: ['old'],
      description: 'old description',
    });
    // What a crash after the attribute write and before the commit leaves: the intent,
    // and new tags beside the old description on the file; the row as acknowledged.
    await insertAttributeIntent(t.index.db, row.hash);
    const acknowledged = attributesFromRow(row);
    await t.blobs.writeAttributes(row.path, { ...acknowledged, tags: ['new'], is_trashed: true });
    expect(await replayAttributeIntents({ db: t.index.db, blobs: t.blobs, logger })).toBe(1);
    expect(await t.blobs.readAttributes(row.path)).toEqual(acknowledged);
    expect(await intentCount()).toBe(0);
  });

  it('a change whose attribute write fails leaves the attributes as the row is', async () => {
    const { row } = await storeAsset(t, 'failing', { tags: ['kept'] });
    let failNext = true;
    // The store as it is (disk or bucket), but the next attribute write fails once written.
    const failing = new Proxy(t.blobs, {
      get(target, key) {
        if (key === 'writeAttributes') {
          return async (...args: Parameters<BlobStore['writeAttributes']>) => {
            await target.writeAttributes(...args);
            if (failNext) {
              failNext = false;
              throw Object.assign(new Error('I/O error'), { code: 'EIO' });
            }
          };
        }
        const value: unknown = Reflect.get(target, key);
        return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
      },
    });
    const { app } = variantApp(t, { resources: { blobs: failing } });
    await request(app)
      .patch(`${BASE}/asset/${row.hash}`)
      .send({ tags: ['lost'] })
      .expect(500);
    expect((await t.blobs.readAttributes(row.path))?.tags).toEqual(['kept']);
    expect(await intentCount()).toBe(0);
  });
});
