import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DeleteBucketCommand } from '@aws-sdk/client-s3';
import type { DatabaseHandle, DatabaseTarget, InstancePresence } from '@svc/database';
import { createTestDatabase, useFileFixture, type TcpProxy, type TestS3 } from '@svc/testing';
import { createLogger } from '@svc/envelope';
import { createApp, type App } from '../src/app.js';
import { configSchema, type Config } from '../src/config.js';
import type { Database } from '../src/db/database.js';
import {
  createAssetRuntime,
  type AssetRuntime,
  type AssetRuntimeOptions,
} from '../src/runtime/asset-runtime.js';
import {
  assembleServices,
  type AssembleOptions,
  type AssetResources,
} from '../src/runtime/asset-services.js';
import type { AssetStorage } from '../src/storage/fs/asset-storage.js';
import type { BlobStore } from '../src/storage/blob-store.js';
import { createS3Client, deleteObjectsUnder } from '../src/storage/s3/s3-client.js';
import { testS3Settings } from './s3-bucket.js';

/** One test file's world: its own database, storage folder and app, built as `main.ts` builds them. */
export interface TestApp {
  app: App;
  config: Config;
  /** The composition root the app was built from (`createAssetRuntime`). */
  runtime: AssetRuntime;
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

/** What a test may set beyond the configuration. */
export interface TestAppOptions {
  /** A server database is reached through it (a database outage the test can play). */
  proxy?: TcpProxy;
  /** The built console to serve. */
  consoleDir?: string;
  /** A second instance on this database (left in place at close) instead of a fresh one. */
  sharedTarget?: DatabaseTarget;
  /** Logger, clock and port wrappers for the runtime. */
  runtime?: AssetRuntimeOptions;
}

/** The S3 settings of a fresh bucket on the test run's S3, as configuration. */
function s3Config(s3: TestS3): Record<string, unknown> {
  return {
    storage_backend: 's3',
    s3_bucket: `asset-store-${randomBytes(6).toString('hex')}`,
    s3_endpoint: s3.endpoint,
    s3_region: s3.region,
    s3_force_path_style: s3.forcePathStyle,
  };
}

/** Empties and drops a test bucket, so a shared S3 server keeps nothing. */
async function dropBucket(s3: TestS3, bucket: string): Promise<void> {
  const client = createS3Client(testS3Settings(s3, bucket));
  try {
    await deleteObjectsUnder(client, bucket, '');
    await client.send(new DeleteBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
}

/**
 * Builds an app on a fresh database and an empty storage root through the service's own
 * composition root: a temporary folder, or the `storage_root` given (which the test then owns).
 */
export async function createTestApp(
  label: string,
  overrides: Partial<Record<keyof Config, unknown>> = {},
  options: TestAppOptions = {},
): Promise<TestApp> {
  const given = typeof overrides.storage_root === 'string' ? overrides.storage_root : undefined;
  const storageRoot = given ?? fs.mkdtempSync(path.join(os.tmpdir(), `asset-store-${label}-`));
  const s3 = s3ForBlobs;
  const config = Object.freeze(
    configSchema.parse({
      storage_root: storageRoot,
      log_level: 'silent',
      ...(s3 ? s3Config(s3) : {}),
      ...overrides,
    }),
  );
  const testDb = options.sharedTarget
    ? { target: options.sharedTarget, drop: () => Promise.resolve() }
    : await createTestDatabase(`asset_${label}`);
  const { target } = testDb;
  const proxied =
    options.proxy && target.kind === 'postgres'
      ? { ...target, url: options.proxy.rewrite(target.url) }
      : target;
  const runtime = await createAssetRuntime(config, {
    target: proxied,
    logger: createLogger('asset-store-test', process.env.TEST_LOG_LEVEL ?? 'silent'),
    version: '0.1.0',
    ...(s3 ? { s3Credentials: testS3Settings(s3, '').credentials } : {}),
    ...options.runtime,
  });
  const app = createApp(runtime, { consoleDir: options.consoleDir });
  const { resources } = runtime;
  const bucket = config.storage_backend === 's3' ? config.s3_bucket : undefined;
  return {
    app,
    config,
    runtime,
    index: resources.index,
    storageRoot,
    storage: resources.storage,
    blobs: resources.blobs,
    ...(bucket ? { bucket } : {}),
    presence: resources.presence,
    close: async () => {
      runtime.beforeDrain();
      await runtime.close();
      if (s3 && bucket) await dropBucket(s3, bucket);
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

/** What a variant of a test's app changes: its configuration, its services' options, its resources. */
export interface VariantOptions extends Partial<AssembleOptions> {
  config?: Partial<Record<keyof Config, unknown>>;
  /** Resources in place of the test app's (a wrapped blob store, an index without its session). */
  resources?: Partial<AssetResources>;
}

/**
 * Another app over the same index and files as `t`, its services built by the service's own
 * `assembleServices` with what the test changes: for tests that watch a service's logs, slow
 * its clock, wrap its blob store or keep a job service of their own.
 */
export function variantApp(
  t: TestApp,
  variant: VariantOptions = {},
): { app: App; runtime: AssetRuntime } {
  const { config: configOverrides, resources: replaced, ...assemble } = variant;
  const config = Object.freeze(configSchema.parse({ ...t.config, ...configOverrides }));
  const resources = { ...t.runtime.resources, ...replaced };
  const logger = assemble.logger ?? t.runtime.logger;
  const services = assembleServices(resources, config, {
    ...assemble,
    logger,
    clock: assemble.clock ?? t.runtime.clock,
  });
  const runtime: AssetRuntime = { ...t.runtime, config, logger, resources, services };
  return { app: createApp(runtime), runtime };
}
