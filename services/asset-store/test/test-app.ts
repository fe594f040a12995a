import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DatabaseHandle } from '@svc/database';
import { createTestDatabase, useFileFixture, type TcpProxy } from '@svc/testing';
import { createLogger } from '@svc/envelope';
import { createApp, type App } from '../src/app.js';
import { configSchema, type Config } from '../src/config.js';
import { indexPorts, openIndex, type Database } from '../src/db/database.js';
import { openAssetStorage, type AssetStorage } from '../src/storage/asset-storage.js';

/** One test file's world: its own database, storage folder and app. */
export interface TestApp {
  app: App;
  config: Config;
  index: DatabaseHandle<Database>;
  storageRoot: string;
  storage: AssetStorage;
  close(): Promise<void>;
}

/**
 * Builds an app on a fresh database and an empty storage root: a temporary folder, or the
 * `storage_root` given (which the test then owns). With `proxy`, a server database is
 * reached through it; `consoleDir` is the built console to serve.
 */
export async function createTestApp(
  label: string,
  overrides: Partial<Record<keyof Config, unknown>> = {},
  options: { proxy?: TcpProxy; consoleDir?: string } = {},
): Promise<TestApp> {
  const given = typeof overrides.storage_root === 'string' ? overrides.storage_root : undefined;
  const storageRoot = given ?? fs.mkdtempSync(path.join(os.tmpdir(), `asset-store-${label}-`));
  const config = Object.freeze(
    configSchema.parse({ storage_root: storageRoot, log_level: 'silent', ...overrides }),
  );
  const testDb = await createTestDatabase(`asset_${label}`);
  const { target } = testDb;
  // Through a proxy the test can cut, to play a database outage.
  const proxied =
    options.proxy && target.kind === 'postgres'
      ? { ...target, url: options.proxy.rewrite(target.url) }
      : target;
  const index = await openIndex(proxied);
  const logger = createLogger('asset-store-test', process.env.TEST_LOG_LEVEL ?? 'silent');
  const storage = await openAssetStorage(storageRoot, logger);
  const app = createApp({
    config,
    storage,
    clock: Date.now,
    ...indexPorts(index),
    logger,
    version: '0.1.0',
    ...(options.consoleDir ? { consoleDir: options.consoleDir } : {}),
  });
  return {
    app,
    config,
    index,
    storageRoot,
    storage,
    close: async () => {
      await index.close();
      await testDb.drop();
      if (!given) fs.rmSync(storageRoot, { recursive: true, force: true });
    },
  };
}

/** Registers the hooks of a test file that shares one app: built before its tests, closed after. */
export function useTestApp(
  label: string,
  overrides: Partial<Record<keyof Config, unknown>> = {},
): TestApp {
  return useFileFixture(() => createTestApp(label, overrides));
}
