import { ConfigError, splitListen } from '@svc/config';
import { assetStoreError, createLogger, serve } from '@svc/envelope';
import { Rebuilder } from './admin/rebuild.service.js';
import { createApp } from './app.js';
import { readConfig, type Config } from './config.js';
import { indexPorts, openIndex, targetFor } from './db/database.js';
import { replayAttributeIntents } from './assets/attribute-intents.js';
import { openAssetStorage } from './storage/asset-storage.js';
import { FsBlobStore } from './storage/fs-blob-store.js';
import { OwnRenames } from './storage/own-renames.js';
import { readVersion } from './version.js';
import { Verifier } from './verifier/verifier.service.js';
import { VerifierWorker } from './verifier/verifier.worker.js';

function configOrExit(): Config {
  try {
    return readConfig(process.argv.slice(2), process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`asset-store: ${err.message}\n`);
    process.exit(2);
  }
}

/** Composition root: config → storage → index → migrate → app → listen → shutdown. */
async function main(): Promise<void> {
  const config = configOrExit();
  if (config.storage_backend === 's3') {
    // The S3 blob store exists and passes the storage contract, but ingest, downloads,
    // attributes, rebuild, the verifier and thumbnails still use the storage root directly:
    // refused rather than served half on S3 (issue 27).
    process.stderr.write('asset-store: storage_backend s3 is not served yet; use fs\n');
    process.exit(2);
  }
  const logger = createLogger('asset-store', config.log_level);
  const storage = await openAssetStorage(config.storage_root, logger);
  const index = await openIndex(targetFor(config.database_url, config.storage_root));
  const { layout, attributes } = storage;
  const rebuilder = new Rebuilder({
    db: index.db,
    layout,
    attributes,
    logger,
    errorThreshold: config.rebuild_error_threshold,
  });
  const ownRenames = new OwnRenames();
  const blobs = new FsBlobStore(storage, ownRenames);
  // Attribute writes a crash cut off before their change committed are undone first, so a
  // rebuild (now or later) reads only acknowledged metadata from the files.
  const realigned = await replayAttributeIntents({ db: index.db, blobs, logger });
  if (realigned > 0) logger.info({ realigned }, 'realigned attributes a crash left ahead');
  // Awaited: a lost database must be whole again before the first list or search, and the
  // files of ingests a crash cut off must be indexed before the first ingest.
  if (!(await rebuilder.rebuildIfEmpty())) await rebuilder.indexUncommitted();
  const verifier = new Verifier({
    db: index.db,
    layout,
    attributes,
    blobs,
    logger,
    identities: storage.identities,
  });
  const app = createApp({
    blobs,
    verifier,
    rebuilder,
    ownRenames,
    config,
    storage,
    clock: Date.now,
    ...indexPorts(index),
    logger,
    version: readVersion(),
  });
  // Background from here on: the start-up scrub never delays serving.
  const worker = VerifierWorker.start({
    verifier,
    root: layout.root,
    ownRenames,
    intervalHours: config.verify_interval_hours,
    logger,
  });
  const { host, port } = splitListen(config.listen);
  await serve({
    app,
    host,
    port,
    logger,
    maxConnectionsPerAddress: config.max_connections_per_address,
    minBodyBytesPerSecond: config.min_body_bytes_per_second,
    render: assetStoreError,
    // An admin scrub in flight ends with the files checked so far rather than holding the
    // drain; the worker's own checks stop too, and onClose waits for them.
    beforeDrain: () => verifier.stop(),
    onClose: async () => {
      await worker.stop();
      await index.close();
    },
  });
}

main().catch((err: unknown) => {
  process.stderr.write(
    `asset-store: failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});
