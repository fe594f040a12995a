import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  holdInstancePresence,
  type DatabaseHandle,
  type DatabaseTarget,
  type InstancePresence,
} from '@svc/database';
import { createTestDatabase, useFileFixture, type TcpProxy, type TestS3 } from '@svc/testing';
import { createLogger } from '@svc/envelope';
import { createApp, type App } from '../src/app.js';
import { configSchema, type Config } from '../src/config.js';
import { indexPorts, openIndex, type Database } from '../src/db/database.js';
import { soloIssuerFor } from '../src/timestamps/timestamp-solo.js';
import { openAssetStorage, type AssetStorage } from '../src/storage/fs/asset-storage.js';
import type { BlobStore } from '../src/storage/blob-store.js';
import { FsBlobStore } from '../src/storage/fs/fs-blob-store.js';
import { openTestBucket } from './s3-bucket.js';

/** One test file's world: its own database, storage folder and app. */
export interface TestApp {
  app: App;
  config: Config;
  index: DatabaseHandle<Database>;
  storageRoot: string;
  storage: AssetStorage;
  /** Where the app keeps the assets: the storage root, or a bucket of its own on S3. */
  blobs: BlobStore;
  /** The bucket, when the assets are on S3 (`useS3Blobs`). */
  bucket?: string;
  /** This app's presence on the index, as `main.ts` holds it; its id is on the jobs it runs. */
  presence: InstancePresence;
  close(): Promise<void>;
}

/** Set by `useS3Blobs`: every app of this test file keeps its assets on this S3. */
let s3ForBlobs: TestS3 | undefined;

/**
 * Makes every app this test file builds keep its assets in a fresh bucket of its own on
 * `s3`: the S3 run of an integration test file (`<name>.s3.test.ts`) calls this, then
 * imports the file itself.
 */
export function useS3Blobs(s3: TestS3): void {
  s3ForBlobs = s3;
}

/**
 * Builds an app on a fresh database and an empty storage root: a temporary folder, or the
 * `storage_root` given (which the test then owns). With `proxy`, a server database is
 * reached through it; `consoleDir` is the built console to serve; with `sharedTarget`, the
 * app is a second instance on that database (left in place at close) instead.
 */
export async function createTestApp(
  label: string,
  overrides: Partial<Record<keyof Config, unknown>> = {},
  options: { proxy?: TcpProxy; consoleDir?: string; sharedTarget?: DatabaseTarget } = {},
): Promise<TestApp> {
  const given = typeof overrides.storage_root === 'string' ? overrides.storage_root : undefined;
  const storageRoot = given ?? fs.mkdtempSync(path.join(os.tmpdir(), `asset-store-${label}-`));
  const config = Object.freeze(
    configSchema.parse({ storage_root: storageRoot, log_level: 'silent', ...overrides }),
  );
  const testDb = options.sharedTarget
    ? { target: options.sharedTarget, drop: () => Promise.resolve() }
    : await createTestDatabase(`asset_${label}`);
  const { target } = testDb;
  // Through a proxy the test can cut, to play a database outage.
  const proxied =
    options.proxy && target.kind === 'postgres'
      ? { ...target, url: options.proxy.rewrite(target.url) }
      : target;
  const index = await openIndex(proxied);
  const presence = await holdInstancePresence(index);
  const logger = createLogger('asset-store-test', process.env.TEST_LOG_LEVEL ?? 'silent');
  const storage = await openAssetStorage(storageRoot, logger);
  const bucket = s3ForBlobs && (await openTestBucket(s3ForBlobs));
  const blobs = bucket?.store ?? new FsBlobStore(storage);
  const ports = { ...indexPorts(index), soloTimestamps: soloIssuerFor(index) };
  const app = createApp({
    config,
    storage,
    ...(bucket ? { blobs } : {}),
    clock: Date.now,
    ...ports,
    instanceId: presence.id,
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
    blobs,
    ...(bucket ? { bucket: bucket.bucket } : {}),
    presence,
    close: async () => {
      await bucket?.close();
      await presence.close();
      await ports.soloTimestamps?.close();
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
