import { configOrExit, envFilesOf, splitListen } from '@svc/config';
import {
  baseUrlOf,
  createLogger,
  exitQuietlyWhileStarting,
  handleRelayError,
  listenFailure,
  readyLine,
  serve,
} from '@svc/envelope';
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
  exitQuietlyWhileStarting();
  const logger = createLogger('handle-relay', config.log_level, config.log_format);
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
  const { address } = await serve({
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
  const base = baseUrlOf(address);
  // Without web_dir, `/` is a placeholder page naming the API.
  const chat = config.web_dir === undefined ? [] : [`chat app: ${base}`];
  process.stderr.write(readyLine('handle-relay', base, [...chat, `API reference: ${base}docs`]));
}

main().catch((err: unknown) => {
  process.stderr.write(
    listenFailure('handle-relay', err, { key: 'bind', env: 'HANDLE_RELAY_BIND' }) ??
      `handle-relay: failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});
