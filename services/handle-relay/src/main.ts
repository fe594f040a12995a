import { configOrExit, envFilesOf, splitListen } from '@svc/config';
import { createLogger, handleRelayError, serve } from '@svc/envelope';
import { createApp } from './app.js';
import { readConfig } from './config.js';
import { openStore, targetFor } from './db/database.js';
import { createRelayRuntime } from './runtime.js';
import { startRetention } from './retention/retention.worker.js';
import { readVersion, SERVICE_DIR } from './version.js';

/** Composition root: config → database → migrate → app → listen → shutdown. */
async function main(): Promise<void> {
  const config = configOrExit('handle-relay', () =>
    readConfig(process.argv.slice(2), process.env, envFilesOf(SERVICE_DIR)),
  );
  const logger = createLogger('handle-relay', config.log_level);
  const store = await openStore(targetFor(config.db));
  const now = Date.now;
  const relay = await createRelayRuntime({ config, store, logger, now });
  const retention = startRetention({
    db: store.db,
    logger,
    now,
    retentionDays: config.message_retention_days,
  });
  const app = createApp({
    config,
    db: store.db,
    ping: store.ping,
    logger,
    version: readVersion(),
    now,
    relay,
  });
  const { host, port } = splitListen(config.bind);
  await serve({
    app,
    host,
    port,
    logger,
    maxConnectionsPerAddress: config.max_connections_per_address,
    minBodyBytesPerSecond: config.min_body_bytes_per_second,
    render: handleRelayError,
    // Open streams never finish on their own: end them so the drain can complete.
    beforeDrain: () => relay.closeStreams(),
    onClose: async () => {
      await retention.stop();
      await relay.close();
      await store.close();
    },
  });
}

main().catch((err: unknown) => {
  process.stderr.write(
    `handle-relay: failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});
