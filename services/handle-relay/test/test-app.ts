import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DatabaseHandle } from '@svc/config/database';
import { createTestDatabase } from '@svc/config/testing';
import { createLogger } from '@svc/envelope';
import type { Express } from 'express';
import { createApp } from '../src/app.js';
import { configSchema, type Config } from '../src/config.js';
import { openStore, type Database } from '../src/db/database.js';

/** One test file's world: its own database, data folder and app. */
export interface TestApp {
  app: Express;
  config: Config;
  store: DatabaseHandle<Database>;
  dataDir: string;
  /** The app's clock: `fixedMs` when set, else real time plus `offsetMs`. */
  clock: { offsetMs: number; fixedMs?: number };
  close(): Promise<void>;
}

/** Builds an app on a fresh database, with settings overridable per test file. */
export async function createTestApp(
  label: string,
  overrides: Partial<Record<keyof Config, unknown>> = {},
): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `handle-relay-${label}-`));
  const config = Object.freeze(
    configSchema.parse({
      server: 'relay.test',
      vapid_key_path: path.join(dataDir, 'vapid.json'),
      log_level: 'silent',
      ...overrides,
    }),
  );
  const testDb = await createTestDatabase(`relay_${label}`);
  const store = await openStore(testDb.target);
  const clock: TestApp['clock'] = { offsetMs: 0 };
  const app = createApp({
    config,
    db: store.db,
    logger: createLogger('handle-relay-test', 'silent'),
    version: '0.1.0',
    now: () => clock.fixedMs ?? Date.now() + clock.offsetMs,
  });
  return {
    app,
    config,
    store,
    dataDir,
    clock,
    close: async () => {
      await store.close();
      await testDb.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
