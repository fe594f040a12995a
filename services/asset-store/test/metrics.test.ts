import sharp from 'sharp';
import request from 'supertest';
import { Migrator } from 'kysely';
import type { App } from '../src/app.js';
import { SCHEMA } from '../src/db/database.js';
import { migrations } from '../src/db/migrations/index.js';
import {
  ingestData,
  ingestFile,
  removeContentBehindItsBack,
  replaceContentBehindItsBack,
} from './asset-helpers.js';
import { insertAssetRow, storeAsset } from './factories.js';
import { useTestApp, variantApp } from './test-app.js';

const TOKEN = 'metrics-token';
const BASE = '/api/v1/can/0';
const auth = { Authorization: `Bearer ${TOKEN}` };

const t = useTestApp('metrics', { admin_token: TOKEN });
let app: App;
beforeEach(async () => {
  await t.index.db.deleteFrom('asset').execute();
  await t.index.db.deleteFrom('job').execute();
  // Fresh services (the verifier reporting to the app's metrics, as the runtime wires them),
  // so every counter starts at zero.
  ({ app } = variantApp(t));
});

/** The value of one series in `/metrics` (0 when absent); labels as written, sorted. */
async function series(name: string, labels = ''): Promise<number> {
  const res = await request(app).get('/metrics').expect(200);
  const line = res.text
    .split('\n')
    .find((l) => l.startsWith(labels ? `${name}{${labels}} ` : `${name} `));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('/metrics domain series', () => {
  it('count ingests and their bytes by route, and the assets and bytes stored by state', async () => {
    const fileBefore = await series('asset_store_ingests_total', 'route="form"');
    const dataBefore = await series('asset_store_ingests_total', 'route="data"');
    expect(await series('asset_store_ingests_total', 'route="tus"')).toBe(0);
    const file = await ingestFile(app, 'twelve bytes');
    const data = await ingestData(app, { data: { a: 1 } });
    expect(await series('asset_store_ingests_total', 'route="form"')).toBe(fileBefore + 1);
    expect(await series('asset_store_ingested_bytes_total', 'route="form"')).toBe(12);
    expect(await series('asset_store_ingests_total', 'route="data"')).toBe(dataBefore + 1);
    const dataBytes = Buffer.byteLength(JSON.stringify({ a: 1 }, null, 2));
    expect(await series('asset_store_ingested_bytes_total', 'route="data"')).toBe(dataBytes);

    const visible = 'trashed="false",corrupted="false"';
    expect(await series('asset_store_assets', visible)).toBe(2);
    expect(await series('asset_store_asset_bytes', visible)).toBe(12 + dataBytes);
    await request(app).delete(`${BASE}/asset/${data.hash}`).expect(200);
    expect(await series('asset_store_assets', visible)).toBe(1);
    expect(await series('asset_store_assets', 'trashed="true",corrupted="false"')).toBe(1);
    expect(await series('asset_store_asset_bytes', 'trashed="true",corrupted="false"')).toBe(
      dataBytes,
    );
    expect(file.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('keep the bytes of rows indexed before they were counted, and of rows changed or deleted', async () => {
    const migrator = new Migrator({
      db: t.index.db,
      provider: { getMigrations: () => Promise.resolve(migrations) },
      migrationTableSchema: SCHEMA,
    });
    const down = await migrator.migrateTo('20261126180000_job');
    expect(down.error).toBeUndefined();
    try {
      await insertAssetRow(t.index.db, { size: 1000 });
      await insertAssetRow(t.index.db, { size: 500, is_trashed: true });
    } finally {
      const up = await migrator.migrateToLatest();
      expect(up.error).toBeUndefined();
    }
    const visible = 'trashed="false",corrupted="false"';
    const trashed = 'trashed="true",corrupted="false"';
    expect(await series('asset_store_asset_bytes', visible)).toBe(1000);
    expect(await series('asset_store_asset_bytes', trashed)).toBe(500);
    const row = await insertAssetRow(t.index.db, { size: 7 });
    expect(await series('asset_store_asset_bytes', visible)).toBe(1007);
    await t.index.db.updateTable('asset').set({ size: 9 }).where('hash', '=', row.hash).execute();
    expect(await series('asset_store_asset_bytes', visible)).toBe(1009);
    expect(await series('asset_store_assets', visible)).toBe(2);
    await t.index.db.deleteFrom('asset').where('size', '=', 1000).execute();
    expect(await series('asset_store_asset_bytes', visible)).toBe(9);
    expect(await series('asset_store_assets', visible)).toBe(1);
  });

  it('count files and bytes checked, corruptions found, and time the last full scrub', async () => {
    const good = await storeAsset(t, 'good content');
    const bad = await storeAsset(t, 'bad content');
    const gone = await storeAsset(t, 'gone');
    await replaceContentBehindItsBack(t, bad.row.path, 'BAD content');
    await removeContentBehindItsBack(t, gone.row.path);
    expect(await series('asset_store_verifier_last_full_scrub_timestamp_seconds')).toBe(0);
    const before = Date.now() / 1000;
    await request(app).post(`${BASE}/admin/verify`).set(auth).expect(200);

    // Each file counts once, by its indexed size, though a finding is looked at twice.
    expect(await series('asset_store_verifier_files_checked_total')).toBe(3);
    const sizes = good.row.size + bad.row.size + gone.row.size;
    expect(await series('asset_store_verifier_bytes_checked_total')).toBe(sizes);
    expect(await series('asset_store_verifier_corruptions_total', 'state="mismatch"')).toBe(1);
    expect(await series('asset_store_verifier_corruptions_total', 'state="missing"')).toBe(1);
    expect(await series('asset_store_assets', 'trashed="false",corrupted="true"')).toBe(2);
    const last = await series('asset_store_verifier_last_full_scrub_timestamp_seconds');
    expect(last).toBeGreaterThanOrEqual(before);
    expect(last).toBeLessThanOrEqual(Date.now() / 1000);
    const duration = await series('asset_store_verifier_last_full_scrub_duration_seconds');
    expect(duration).toBeGreaterThanOrEqual(0);
    expect(duration).toBeLessThan(Date.now() / 1000 - before + 0.01);
  });

  it('count thumbnails rendered, cache misses and hits, and time the renders', async () => {
    const png = await sharp({
      create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 0, b: 0 } },
    })
      .png()
      .toBuffer();
    const { hash } = await ingestFile(app, png, 'red.png');
    const thumb = `${BASE}/asset/${hash}/thumb/32/32`;
    await request(app).get(thumb).expect(200);
    expect(await series('asset_store_thumbnails_rendered_total')).toBe(1);
    expect(await series('asset_store_thumbnail_cache_misses_total')).toBe(1);
    expect(await series('asset_store_thumbnail_cache_hits_total')).toBe(0);
    expect(await series('asset_store_thumbnail_render_duration_seconds_count')).toBe(1);
    await request(app).get(thumb).expect(200);
    expect(await series('asset_store_thumbnails_rendered_total')).toBe(1);
    expect(await series('asset_store_thumbnail_cache_hits_total')).toBe(1);
  });
});
