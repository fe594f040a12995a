import type { RequestListener } from 'node:http';
import { configOrExit, envFilesOf, splitListen } from '@svc/config';
import {
  assetStoreError,
  baseUrlOf,
  createLogger,
  exitQuietlyWhileStarting,
  listenFailure,
  readyLine,
  serve,
  type Served,
} from '@svc/envelope';
import { createApp } from './app.js';
import { adminTokenFromFile, adminTokenLine } from './auth/admin-token-file.js';
import { readConfig, type Config } from './config.js';
import { startingApp } from './health/starting.js';
import { createAssetRuntime, type AssetRuntime } from './runtime/asset-runtime.js';
import { SERVICE_DIR } from './version.js';

/**
 * Entry point: config → runtime (storage, index, recovery, services) → app → listen →
 * shutdown. A start that waits on S3 listens meanwhile (`/healthz` 503 saying on what, every
 * other request 503), and a SIGTERM then stops it at once.
 */
async function main(): Promise<void> {
  const read = configOrExit('asset-store', () =>
    readConfig(process.argv.slice(2), process.env, envFilesOf(SERVICE_DIR)),
  );
  // The quick start's admin token (`pnpm start` names the file): admin_token wins.
  const kept =
    read.admin_token === undefined && read.admin_token_file !== undefined
      ? adminTokenFromFile(read.admin_token_file)
      : undefined;
  const config: Config = kept ? Object.freeze({ ...read, admin_token: kept.token }) : read;
  exitQuietlyWhileStarting();
  const logger = createLogger('asset-store', config.log_level, config.log_format);
  const stop = new AbortController();
  let waitingFor = 'opening the index';
  let handler: RequestListener = startingApp(() => waitingFor, logger);
  let runtime: AssetRuntime | undefined;
  let listening: Promise<Served> | undefined;
  const { host, port } = splitListen(config.listen);
  const listen = () =>
    (listening ??= serve({
      app: (req, res) => handler(req, res),
      host,
      port,
      logger,
      maxConnectionsPerAddress: config.max_connections_per_address,
      minBodyBytesPerSecond: config.min_body_bytes_per_second,
      render: assetStoreError,
      // A start still waiting gives up (and gives back what it opened). An admin scrub in
      // flight ends with the files checked so far rather than holding the drain; the
      // worker's own checks stop too, and close waits for them.
      beforeDrain: () => {
        stop.abort();
        runtime?.beforeDrain();
      },
      onClose: async () => {
        await (await starting.catch(() => undefined))?.close();
      },
    }));
  const starting = createAssetRuntime(config, {
    logger,
    startup: {
      signal: stop.signal,
      waiting: (what) => {
        waitingFor = what;
        listen().catch(failed);
      },
    },
  });
  try {
    runtime = await starting;
  } catch (err) {
    // Stopped while waiting: the shutdown finishes and exits 0.
    if (stop.signal.aborted) return;
    throw err;
  }
  handler = createApp(runtime);
  // Background from here on: the start-up scrub never delays serving.
  runtime.startBackground();
  const { address } = await listen();
  const base = baseUrlOf(address);
  const places = config.console ? [`console: ${base}console/`] : [];
  if (kept) process.stderr.write(adminTokenLine(kept));
  process.stderr.write(readyLine('asset-store', base, [...places, `API reference: ${base}docs`]));
}

function failed(err: unknown): never {
  process.stderr.write(
    listenFailure('asset-store', err, { key: 'listen', env: 'ASSET_STORE_LISTEN' }) ??
      `asset-store: failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
}

main().catch(failed);
