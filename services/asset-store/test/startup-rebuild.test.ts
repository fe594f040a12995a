import path from 'node:path';
import { freePort, spawnService } from '@svc/testing/service-process';
import { useServiceSandbox } from '@svc/testing/service-sandbox';
import { testDatabaseMode } from '@svc/testing';
import request from 'supertest';
import { storeEditedAndTrashed } from './asset-helpers.js';
import { createTestApp, type TestApp } from './test-app.js';

const ENTRY = path.resolve(import.meta.dirname, '..', 'src', 'main.ts');
// Each start loads the whole service through tsx; a fresh embedded database adds seconds.
const START_TIMEOUT_MS = 90_000;
const BASE = '/api/v1/can/0';
const ALL = 'include_trashed=true&include_corrupted=true';

let t: TestApp;
// Registered first, so the service stops before the test app closes under it.
const sandbox = useServiceSandbox('asset-store-rebuild-config-', 'SIGTERM');
beforeEach(async () => {
  t = await createTestApp('startup_rebuild');
}, 60_000);
afterEach(async () => {
  await t.close();
});

/**
 * Starts `main.ts` over the test's storage root with an index of its own: a fresh, empty
 * database (`fresh`), or the test app's own, which already holds rows.
 */
async function startService(index: 'fresh' | 'existing'): Promise<number> {
  const port = await freePort();
  let url: string | undefined;
  if (index === 'fresh') url = await sandbox.serverDatabaseUrl('asset_rebuilt');
  else if (t.index.target.kind === 'postgres') url = t.index.target.url;
  else throw new Error('an embedded index cannot be shared with a second process');
  const databaseLine = url === undefined ? '' : `database_url: ${url}\n`;
  const file = sandbox.configFile(
    `storage_root: ${t.storageRoot}\nlisten: 127.0.0.1:${port}\nlog_level: info\n${databaseLine}`,
  );
  sandbox.running = spawnService(ENTRY, [file]);
  await sandbox.running.waitForLog('listening');
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
      const log = await sandbox.running!.waitForLog(
        'index was empty; rebuilt it from the storage root',
      );
      expect(log).toMatchObject({ mode: 'soft', scanned: 2, indexed: 2, errors: 0 });
    },
    START_TIMEOUT_MS,
  );

  // Skipped on the embedded database: the started service must open the test's own index,
  // and an embedded one belongs to a single process.
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
      expect(sandbox.running!.stdout()).not.toContain('rebuilt it from the storage root');
    },
    START_TIMEOUT_MS,
  );
});
