import fs from 'node:fs';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { DatabaseHandle } from '@svc/database';
import { createTestDatabase, useFileFixture, type TcpProxy } from '@svc/testing';
import { createLogger } from '@svc/envelope';
import { createApp, type App } from '../src/app.js';
import { configSchema, type Config } from '../src/config.js';
import type { PushSender } from '../src/push/push-sender.port.js';
import { openStore, type Database } from '../src/db/database.js';
import { createRelayRuntime, type RelayRuntime } from '../src/runtime.js';

/** Time a test file may take to build or drop its world (a fresh database and app). */
export const SETUP_TIMEOUT_MS = 60_000;

/** One test file's world: its own database, data folder and app. */
export interface TestApp {
  app: App;
  config: Config;
  store: DatabaseHandle<Database>;
  dataDir: string;
  /** The app's clock: `fixedMs` when set, else real time plus `offsetMs`. */
  clock: { offsetMs: number; fixedMs?: number };
  /** The messaging runtime (streams, pub/sub, push) behind the app. */
  relay: RelayRuntime;
  close(): Promise<void>;
}

/** Test-only knobs of the messaging runtime. */
export interface TestAppOptions {
  /** Stream keep-alive interval (the contract's 15 s is too slow for a test). */
  pingIntervalMs?: number;
  /** Reach a server database through this proxy, which the test can cut (an outage). */
  proxy?: TcpProxy;
  /** Web Push delivery; the real sender unless a test records deliveries instead. */
  pushSender?: PushSender;
}

/**
 * Builds an app on a fresh database, with settings overridable per test file. Rate
 * limiting is off unless a test turns it on, so factories may register freely.
 */
export async function createTestApp(
  label: string,
  overrides: Partial<Record<keyof Config, unknown>> = {},
  options: TestAppOptions = {},
): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `handle-relay-${label}-`));
  const config = Object.freeze(
    configSchema.parse({
      server: 'relay.test',
      vapid_key_path: path.join(dataDir, 'vapid.json'),
      log_key_path: path.join(dataDir, 'log-key.json'),
      log_level: 'silent',
      rate_limit_per_minute: 0,
      ...overrides,
    }),
  );
  const testDb = await createTestDatabase(`relay_${label}`);
  const { target } = testDb;
  const proxied =
    options.proxy && target.kind === 'postgres'
      ? { ...target, url: options.proxy.rewrite(target.url) }
      : target;
  const store = await openStore(proxied);
  const clock: TestApp['clock'] = { offsetMs: 0 };
  const logger = createLogger('handle-relay-test', 'silent');
  const now = () => clock.fixedMs ?? Date.now() + clock.offsetMs;
  const relay = await createRelayRuntime({
    config,
    store,
    logger,
    now,
    pingIntervalMs: options.pingIntervalMs,
    pushSender: options.pushSender,
  });
  const app = createApp({
    config,
    db: store.db,
    ping: store.ping,
    logger,
    version: '0.1.0',
    now,
    relay,
  });
  return {
    app,
    config,
    store,
    dataDir,
    clock,
    relay,
    close: async () => {
      await relay.close();
      await store.close();
      await testDb.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Registers the hooks of a test file that shares one app: built before its tests, closed
 * after them. Given `clockMs` (undefined: real time), its clock is set to it before each test.
 */
export function useTestApp(
  label: string,
  overrides: Partial<Record<keyof Config, unknown>> = {},
  options: TestAppOptions & { clockMs?: number } = {},
): TestApp {
  const t = useFileFixture(() => createTestApp(label, overrides, options), SETUP_TIMEOUT_MS);
  if ('clockMs' in options) {
    beforeEach(() => {
      t.clock.fixedMs = options.clockMs;
    });
  }
  return t;
}

/** The app served over HTTP on a loopback port, for clients that need a real URL. */
export interface ListeningApp {
  server: Server;
  url: string;
  /** Ends open connections (streams too) and stops listening. */
  close(): Promise<void>;
}

/** Serves `app` on a free port of 127.0.0.1. */
export async function listenOnLoopback(app: App): Promise<ListeningApp> {
  const server = await new Promise<Server>((resolve) => {
    const s = http.createServer(app).listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
