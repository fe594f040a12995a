import { ConfigError, splitListen } from '@svc/config';
import { holdInstancePresence, instanceLock } from '@svc/database';
import { assetStoreError, createLogger, serve } from '@svc/envelope';
import { Rebuilder } from './admin/rebuild.service.js';
import { createApp } from './app.js';
import { JobService } from './jobs/job.service.js';
import { AssetMetrics } from './metrics/asset-metrics.js';
import { readConfig, type Config } from './config.js';
import { indexPorts, openIndex, targetFor } from './db/database.js';
import { replayAttributeIntents } from './assets/attribute-intents.js';
import { withTimestampFence } from './timestamps/timestamp-fence.js';
import { soloIssuerFor } from './timestamps/timestamp-solo.js';
import { openAssetStorage } from './storage/fs/asset-storage.js';
import { startDigestWorker } from './storage/content-digest.js';
import { openBlobStore } from './runtime/open-blob-store.js';
import { BlobWatch } from './verifier/blob-watch.js';
import { PlacementNotices } from './storage/fs/placement-notices.js';
import { OwnRenames } from './storage/fs/own-renames.js';
import { UploadExpiry } from './uploads/upload-expiry.js';
import { uploadStoreFor } from './uploads/upload-store.js';
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
  const logger = createLogger('asset-store', config.log_level);
  const storage = await openAssetStorage(config.storage_root, logger);
  startDigestWorker();
  const index = await openIndex(targetFor(config.database_url, config.storage_root));
  const { layout, attributes } = storage;
  const ownRenames = new OwnRenames();
  // Held for the process's life: other instances on the index see this one's jobs and
  // staged uploads as live.
  const presence = await holdInstancePresence(index);
  // Instances on one server and one folder tell each other of the files they place.
  const placements =
    index.target.kind === 'postgres' && config.storage_backend === 'fs'
      ? PlacementNotices.start(index.target.url, index.schema, logger)
      : undefined;
  // With S3, storage_root keeps only scratch space (and the embedded index).
  const blobs = await openBlobStore(config, storage, { ownRenames, placements }, logger, {
    id: presence.id,
    isGone: (id) => presence.isGone(id),
  });
  const rebuilder = new Rebuilder({
    db: index.db,
    layout,
    attributes,
    blobs,
    logger,
    errorThreshold: config.rebuild_error_threshold,
    // Several instances on one server: rebuilds exclude each other (pg advisory lock), and
    // no instance issues timestamps from memory meanwhile (the rebuild brings some in).
    lock:
      index.target.kind === 'postgres'
        ? withTimestampFence(instanceLock(index, 'rebuild'), index.target.url, index.schema)
        : instanceLock(index, 'rebuild'),
  });
  // Attribute writes a crash cut off before their change committed are undone first, so a
  // rebuild (now or later) reads only acknowledged metadata from the files.
  const realigned = await replayAttributeIntents({ db: index.db, blobs, logger });
  if (realigned > 0) logger.info({ realigned }, 'realigned attributes a crash left ahead');
  // Awaited: a lost database must be whole again before the first list or search, and the
  // files of ingests a crash cut off must be indexed before the first ingest.
  if (!(await rebuilder.rebuildIfEmpty())) await rebuilder.indexUncommitted();
  // Jobs do not outlive their process: one that a process now gone left running has failed.
  const interrupted = await JobService.failInterrupted(index.db, presence);
  if (interrupted > 0) logger.warn({ interrupted }, 'jobs left running by a gone process failed');
  const metrics = new AssetMetrics();
  const verifier = new Verifier({
    db: index.db,
    layout,
    attributes,
    blobs,
    logger,
    identities: storage.identities,
    metrics,
    peerPlacements: placements,
  });
  const jobs = new JobService({
    db: index.db,
    verifier,
    rebuilder,
    blobs,
    logger,
    instanceId: presence.id,
  });
  // Expired resumable uploads go before serving, then periodically.
  const uploadStore = uploadStoreFor(layout.uploads, config.upload_expiry_hours);
  const uploadExpiry = await UploadExpiry.start(uploadStore, logger);
  const ports = { ...indexPorts(index), soloTimestamps: soloIssuerFor(index) };
  const app = createApp({
    blobs,
    verifier,
    rebuilder,
    jobs,
    metrics,
    ownRenames,
    uploadStore,
    config,
    storage,
    clock: Date.now,
    ...ports,
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
    onChangeChecked: (lag) => metrics.changeChecked(lag),
    scrubLock: instanceLock(index, 'scrub'),
  });
  let stoppingJobs: Promise<void> = Promise.resolve();
  // No file system events come from a bucket: its changes are found by listing.
  const blobWatch =
    blobs.kind === 's3'
      ? new BlobWatch(blobs, (names) => verifier.verifyPaths(names), logger)
      : undefined;
  blobWatch?.start(config.s3_watch_seconds);
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
    // Jobs first, so the scrub the verifier's stop cuts short is recorded as failed.
    beforeDrain: () => {
      stoppingJobs = jobs.stop();
      verifier.stop();
    },
    onClose: async () => {
      uploadExpiry.stop();
      await blobWatch?.stop();
      await worker.stop();
      await stoppingJobs;
      // After the jobs' outcomes are saved: until then they are this live instance's.
      await presence.close();
      await ports.soloTimestamps?.close();
      await placements?.close();
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
