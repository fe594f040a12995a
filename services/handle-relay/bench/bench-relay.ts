// The real handle-relay app as the benchmarks run it: its own store (server when
// BENCH_DATABASE_URL is set, else in-memory PGlite), a throw-away VAPID folder, no rate
// limit, silent logs; BENCH_RELAY_CONFIG (JSON) adds settings.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@svc/envelope';
import { createApp, type App } from '../src/app.js';
import { configSchema } from '../src/config.js';
import { openStore } from '../src/db/database.js';
import { createRelayRuntime, type RelayRuntime } from '../src/runtime.js';

/** A benchmark's relay and how to put it away. */
export interface BenchRelay {
  app: App;
  relay: RelayRuntime;
  /** Closes the relay and the store, and removes the temporary folder. */
  close: () => Promise<void>;
}

/** Builds the app exactly as `main.ts` composes it, on the benchmark's database. */
export async function startBenchRelay(): Promise<BenchRelay> {
  const url = process.env.BENCH_DATABASE_URL;
  const store = await openStore(url ? { kind: 'postgres', url } : { kind: 'pglite' });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'handle-relay-bench-'));
  const config = Object.freeze(
    configSchema.parse({
      server: 'bench.test',
      rate_limit_per_minute: 0,
      log_level: 'silent',
      vapid_key_path: path.join(dataDir, 'vapid.json'),
      log_key_path: path.join(dataDir, 'log-key.json'),
      // A bench's own settings for its children (`pubsub: nats` for bench:scale).
      ...(JSON.parse(process.env.BENCH_RELAY_CONFIG ?? '{}') as Record<string, unknown>),
      ...(url ? { db: url } : {}),
    }),
  );
  const logger = createLogger('handle-relay-bench', 'silent');
  const relay = await createRelayRuntime({ config, store, logger, now: Date.now });
  const app = createApp({
    config,
    db: store.db,
    ping: store.ping,
    logger,
    version: 'bench',
    now: Date.now,
    relay,
    // bench:identity's baseline child: registrations as they were before the log.
    registrationsWithoutLog: process.env.BENCH_WITHOUT_LOG === '1',
  });
  return {
    app,
    relay,
    close: async () => {
      await relay.close();
      await store.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
