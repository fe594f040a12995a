import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  freePort,
  spawnService,
  type ServiceProcess,
  stopIfRunning,
} from '@svc/testing/service-process';
import { createTestDatabase, testDatabaseMode, type TestDatabase } from '@svc/testing';
import request from 'supertest';
import { storeEditedAndTrashed } from './asset-helpers.js';
import { createTestApp, type TestApp } from './test-app.js';

const ENTRY = path.resolve(import.meta.dirname, '..', 'src', 'main.ts');
// Each start loads the whole service through tsx; a fresh embedded database adds seconds.
const START_TIMEOUT_MS = 90_000;
const BASE = '/api/v1/can/0';
const ALL = 'include_trashed=true&include_corrupted=true';

let t: TestApp;
let configDir: string;
let db: TestDatabase | undefined;
let running: ServiceProcess | undefined;
beforeEach(async () => {
  t = await createTestApp('startup_rebuild');
  configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-store-rebuild-config-'));
}, 60_000);
afterEach(async () => {
  await stopIfRunning(running, 'SIGTERM');
  running = undefined;
  await db?.drop();
  db = undefined;
  await t.close();
  fs.rmSync(configDir, { recursive: true, force: true });
});

/**
 * Starts `main.ts` over the test's storage root with an index of its own: a fresh, empty
 * database (`fresh`), or the test app's own, which already holds rows.
 */
async function startService(index: 'fresh' | 'existing'): Promise<number> {
  const port = await freePort();
  let databaseLine = '';
  if (testDatabaseMode() === 'postgres') {
    const target =
      index === 'fresh' ? (db = await createTestDatabase('asset_rebuilt')).target : t.index.target;
    if (target.kind === 'postgres') databaseLine = `database_url: ${target.url}\n`;
  } else if (index === 'existing') {
    throw new Error('an embedded index cannot be shared with a second process');
  }
  const file = path.join(configDir, 'config.yaml');
  fs.writeFileSync(
    file,
    `storage_root: ${t.storageRoot}\nlisten: 127.0.0.1:${port}\nlog_level: info\n${databaseLine}`,
  );
  running = spawnService(ENTRY, [file]);
  await running.waitForLog('listening');
  return port;
}

async function listAll(base: string | TestApp['app']): Promise<unknown> {
  if (typeof base === 'string') return (await fetch(`${base}${BASE}/list?${ALL}`)).json();
  return (await request(base).get(`${BASE}/list?${ALL}`).expect(200)).body;
}

describe('start-up over a storage root that holds assets', () => {
  it(
    'rebuilds an empty index from the files before serving, so no metadata is lost',
    async () => {
      await storeEditedAndTrashed(t.app);
      const before = await listAll(t.app);
      const port = await startService('fresh');
      // The first request after "listening" already sees every asset, field for field.
      expect(await listAll(`http://127.0.0.1:${port}`)).toEqual(before);
      const log = await running!.waitForLog('index was empty; rebuilt it from the storage root');
      expect(log).toMatchObject({ mode: 'soft', scanned: 2, indexed: 2, errors: 0 });
    },
    START_TIMEOUT_MS,
  );

  const postgresOnly = testDatabaseMode() === 'postgres' ? it : it.skip;
  postgresOnly(
    'leaves an index that holds rows as it is (no rebuild)',
    async () => {
      await storeEditedAndTrashed(t.app);
      // Only in the index: a rebuild from the files would put "first" back.
      await t.index.db.updateTable('asset').set({ description: 'index only' }).execute();
      const before = await listAll(t.app);
      const port = await startService('existing');
      expect(await listAll(`http://127.0.0.1:${port}`)).toEqual(before);
      expect(running!.stdout()).not.toContain('rebuilt it from the storage root');
    },
    START_TIMEOUT_MS,
  );
});
