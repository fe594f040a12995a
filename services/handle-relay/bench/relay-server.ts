// A handle-relay instance for bench:relay, run as a child process so its CPU and heap are
// its own. Answers IPC: 'heap' (heap used after a full GC), 'stop'.
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@svc/envelope';
import { createApp } from '../src/app.js';
import { configSchema } from '../src/config.js';
import { openStore } from '../src/db/database.js';
import { createRelayRuntime } from '../src/messages/relay-runtime.js';

async function main(): Promise<void> {
  const url = process.env.BENCH_DATABASE_URL;
  const store = await openStore(url ? { kind: 'postgres', url } : { kind: 'pglite' });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'handle-relay-bench-'));
  const config = Object.freeze(
    configSchema.parse({
      server: 'bench.test',
      rate_limit_per_minute: 0,
      log_level: 'silent',
      vapid_key_path: path.join(dataDir, 'vapid.json'),
    }),
  );
  const logger = createLogger('handle-relay-bench', 'silent');
  const relay = await createRelayRuntime({ config, store, logger, now: Date.now });
  const app = createApp({ config, db: store.db, logger, version: 'bench', now: Date.now, relay });
  const server = app.listen(0, '127.0.0.1', () => {
    process.send?.({ port: (server.address() as AddressInfo).port });
  });
  process.on('message', (msg) => {
    if (msg === 'heap') {
      (globalThis as { gc?: () => void }).gc?.();
      process.send?.({ heap: process.memoryUsage().heapUsed, streams: relay.streams.size });
    }
    if (msg === 'stop') {
      void relay.closeStreams().then(() => {
        server.closeAllConnections();
        server.close(() => {
          void relay
            .close()
            .then(() => store.close())
            .then(() => {
              fs.rmSync(dataDir, { recursive: true, force: true });
              process.exit(0);
            });
        });
      });
    }
  });
}

void main();
