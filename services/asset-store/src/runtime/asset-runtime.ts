import { holdInstancePresence, instanceLock, type DatabaseTarget } from '@svc/database';
import { createLogger } from '@svc/envelope';
import type { Logger } from 'pino';
import { replayAttributeIntents } from '../assets/attribute-intents.js';
import { ChangeSignal } from '../changes/change-signal.js';
import type { Config } from '../config.js';
import { openIndex, targetFor } from '../db/database.js';
import { JobService } from '../jobs/job.service.js';
import type { AttributeStore } from '../storage/attributes.js';
import type { BlobStore } from '../storage/blob-store.js';
import { startDigestWorker } from '../storage/content-digest.js';
import { openAssetStorage, releaseStagingFolder } from '../storage/fs/asset-storage.js';
import { OwnRenames } from '../storage/fs/own-renames.js';
import { PlacementNotices } from '../storage/fs/placement-notices.js';
import type { ThumbnailRenderer } from '../thumbnails/thumbnail.renderer.js';
import { soloIssuerFor } from '../timestamps/timestamp-solo.js';
import { UploadExpiry } from '../uploads/upload-expiry.js';
import { readVersion } from '../version.js';
import { BlobWatch } from '../verifier/blob-watch.js';
import { VerifierWorker } from '../verifier/verifier.worker.js';
import {
  assembleServices,
  type AssembleOptions,
  type AssetResources,
  type AssetServices,
} from './asset-services.js';
import { openBlobStore, type S3Credentials, type StartupWatch } from './open-blob-store.js';

/** How often each instance deletes change feed events past retention. */
const PRUNE_EVERY_MS = 3_600_000;

/** What a caller may set instead of the service's defaults (tests: their own database, seams). */
export interface AssetRuntimeOptions {
  /** Where the index lives; from `database_url` / `storage_root` when absent. */
  target?: DatabaseTarget;
  logger?: Logger;
  version?: string;
  clock?: () => number;
  /** S3 credentials instead of the AWS SDK's default chain. */
  s3Credentials?: S3Credentials;
  /** Wrap the outside I/O ports (fault injection in tests). */
  wrap?: {
    blobs?: (real: BlobStore) => BlobStore;
    attributes?: (real: AttributeStore) => AttributeStore;
  };
  thumbnailRenderer?: ThumbnailRenderer;
  /** Told when the start waits on S3, and stopped by its signal (`main.ts`). */
  startup?: StartupWatch;
}

/** What start-up recovery did. */
export interface StartupReport {
  /** Attribute writes a crash left ahead of their committed change, undone. */
  realigned: number;
  /** Jobs a gone process left running, now failed. */
  interrupted: number;
}

/** One asset-store process: its resources, its services, and the work it does in the background. */
export interface AssetRuntime {
  config: Config;
  logger: Logger;
  version: string;
  clock: () => number;
  resources: AssetResources;
  services: AssetServices;
  /** What start-up recovery found (logged as well). */
  startup: StartupReport;
  /** Whether the index answers (`/healthz`). */
  ping(): Promise<boolean>;
  /** Why the blob store cannot serve now (S3 unreachable), or undefined (`/healthz`). */
  storageProblem(): Promise<string | undefined>;
  /** The start-up scrub, the periodic one, the file watch or the bucket listing. */
  startBackground(): void;
  /** At shutdown, before in-flight requests are waited for: jobs and scrubs stop. */
  beforeDrain(): void;
  /** Ends everything, the index last. */
  close(): Promise<void>;
}

/**
 * The composition root of asset-store, used by `main.ts` and by the in-process tests alike:
 * opens the storage root, the index and the blob store, recovers what a crash left, and
 * builds the services. Awaited before serving: a lost index is whole again before the first
 * list, and the files of ingests a crash cut off are indexed before the first ingest.
 */
export async function createAssetRuntime(
  config: Config,
  options: AssetRuntimeOptions = {},
): Promise<AssetRuntime> {
  const logger = options.logger ?? createLogger('asset-store', config.log_level, config.log_format);
  const clock = options.clock ?? Date.now;
  const opened = await openStorage(config, logger, options);
  const resources: AssetResources = opened.resources;
  const assemble: AssembleOptions = {
    logger,
    clock,
    ...(options.thumbnailRenderer ? { thumbnailRenderer: options.thumbnailRenderer } : {}),
  };
  const services = assembleServices(resources, config, assemble);
  const { index, blobs } = resources;
  // Attribute writes a crash cut off before their change committed are undone first, so a
  // rebuild (now or later) reads only acknowledged metadata from the files.
  const realigned = await replayAttributeIntents({ db: index.db, blobs, logger });
  if (realigned > 0) logger.info({ realigned }, 'realigned attributes a crash left ahead');
  if (!(await services.rebuilder.rebuildIfEmpty())) await services.rebuilder.indexUncommitted();
  // Jobs do not outlive their process: one that a process now gone left running has failed.
  const interrupted = await JobService.failInterrupted(index.db, resources.presence);
  if (interrupted > 0) logger.warn({ interrupted }, 'jobs left running by a gone process failed');
  // Expired resumable uploads go before serving, then periodically.
  const uploadExpiry = await UploadExpiry.start(services.uploadStore, logger);
  let worker: VerifierWorker | undefined;
  let pruning: NodeJS.Timeout | undefined;
  let blobWatch: BlobWatch | undefined;
  let stoppingJobs: Promise<void> = Promise.resolve();
  return {
    config,
    logger,
    version: options.version ?? readVersion(),
    clock,
    resources,
    services,
    startup: { realigned, interrupted },
    ping: () => index.ping(),
    storageProblem: () => opened.storageProblem(),
    startBackground() {
      const { verifier, metrics, changes, webhooks } = services;
      services.webhookDispatcher.start();
      // Change feed retention: now, then hourly (each instance; deleting twice is harmless).
      const prune = () =>
        void Promise.all([changes.prune(), webhooks.prune()]).catch((err: unknown) => {
          logger.warn({ err }, 'change feed: pruning old events failed; retried in an hour');
        });
      prune();
      pruning = setInterval(prune, PRUNE_EVERY_MS);
      pruning.unref();
      worker = VerifierWorker.start({
        verifier,
        root: resources.storage.layout.root,
        ownRenames: resources.ownRenames,
        intervalHours: config.verify_interval_hours,
        logger,
        onChangeChecked: (lag) => metrics.changeChecked(lag),
        scrubLock: instanceLock(index, 'scrub'),
      });
      // No file system events come from a bucket: its changes are found by listing.
      if (blobs.kind === 's3') {
        blobWatch = new BlobWatch(blobs, (names) => verifier.verifyPaths(names), logger);
        blobWatch.start(config.s3_watch_seconds);
      }
    },
    // Jobs first, so the scrub the verifier's stop cuts short is recorded as failed.
    beforeDrain() {
      services.changes.stop();
      stoppingJobs = services.jobs.stop();
      services.verifier.stop();
    },
    async close() {
      clearInterval(pruning);
      await services.webhookDispatcher.stop();
      uploadExpiry.stop();
      await blobWatch?.stop();
      await worker?.stop();
      await stoppingJobs;
      await opened.close();
    },
  };
}

/** The resources opened, and how to give them back once the services are done with them. */
interface OpenedStorage {
  resources: AssetResources;
  storageProblem(): Promise<string | undefined>;
  close(): Promise<void>;
}

async function openStorage(
  config: Config,
  logger: Logger,
  options: AssetRuntimeOptions,
): Promise<OpenedStorage> {
  const opened = await openAssetStorage(config.storage_root, logger);
  const storage = options.wrap?.attributes
    ? { ...opened, attributes: options.wrap.attributes(opened.attributes) }
    : opened;
  startDigestWorker();
  const index = await openIndex(
    options.target ?? targetFor(config.database_url, config.storage_root),
  );
  const ownRenames = new OwnRenames();
  // Held for the process's life: other instances on the index see this one's jobs and
  // staged uploads as live.
  const presence = await holdInstancePresence(index);
  const placements =
    index.target.kind === 'postgres' && config.storage_backend === 'fs'
      ? PlacementNotices.start(index.target.url, index.schema, logger)
      : undefined;
  // With S3, storage_root keeps only scratch space (and the embedded index). A start that
  // waits on S3 and is stopped, or meets a lasting S3 error, gives back what it opened.
  const store = await openBlobStore(config, storage, { ownRenames, placements }, logger, {
    owner: { id: presence.id, isGone: (id) => presence.isGone(id) },
    ...(options.s3Credentials ? { credentials: options.s3Credentials } : {}),
    ...(options.startup ? { startup: options.startup } : {}),
  }).catch(async (err: unknown) => {
    await presence.close();
    await placements?.close();
    await index.close();
    await releaseStagingFolder(opened.layout);
    throw err;
  });
  const blobs = options.wrap?.blobs ? options.wrap.blobs(store.blobs) : store.blobs;
  const soloTimestamps = soloIssuerFor(index);
  const changeSignal = ChangeSignal.start(index, logger);
  return {
    resources: {
      index,
      presence,
      storage,
      blobs,
      ownRenames,
      placements,
      soloTimestamps,
      changeSignal,
    },
    storageProblem: () => store.problem(),
    close: async () => {
      store.close();
      // After the jobs' outcomes are saved: until then they are this live instance's.
      await presence.close();
      await changeSignal.close();
      await soloTimestamps?.close();
      await placements?.close();
      await index.close();
      await releaseStagingFolder(opened.layout);
    },
  };
}
