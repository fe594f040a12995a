import { configOrExit, splitListen } from '@svc/config';
import { assetStoreError, serve } from '@svc/envelope';
import { createApp } from './app.js';
import { readConfig } from './config.js';
import { createAssetRuntime } from './runtime/asset-runtime.js';

/** Entry point: config → runtime (storage, index, recovery, services) → app → listen → shutdown. */
async function main(): Promise<void> {
  const config = configOrExit('asset-store', () => readConfig(process.argv.slice(2), process.env));
  const runtime = await createAssetRuntime(config);
  const app = createApp(runtime);
  // Background from here on: the start-up scrub never delays serving.
  runtime.startBackground();
  const { host, port } = splitListen(config.listen);
  await serve({
    app,
    host,
    port,
    logger: runtime.logger,
    maxConnectionsPerAddress: config.max_connections_per_address,
    minBodyBytesPerSecond: config.min_body_bytes_per_second,
    render: assetStoreError,
    // An admin scrub in flight ends with the files checked so far rather than holding the
    // drain; the worker's own checks stop too, and close waits for them.
    beforeDrain: () => runtime.beforeDrain(),
    onClose: () => runtime.close(),
  });
}

main().catch((err: unknown) => {
  process.stderr.write(
    `asset-store: failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});
