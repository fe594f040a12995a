import type { DatabaseHandle, InstanceLock, InstancePresence } from '@svc/database';
import { backfillMedia, countUnprobed } from '../assets/media-backfill.js';
import { instanceLock } from '@svc/database';
import type { Logger } from 'pino';
import { PurgeService } from '../admin/purge.service.js';
import { Rebuilder } from '../admin/rebuild.service.js';
import { maxAssetTimestamp } from '../assets/asset.repository.js';
import { AssetService } from '../assets/asset.service.js';
import type { ChangeSignal } from '../changes/change-signal.js';
import { ChangeFeed } from '../changes/change.service.js';
import { IngestService } from '../assets/ingest.service.js';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { JobService } from '../jobs/job.service.js';
import { AssetMetrics } from '../metrics/asset-metrics.js';
import { assetTotalsByState } from '../metrics/asset-totals.repository.js';
import { SearchService } from '../search/search.service.js';
import { BrowseService } from '../browse/browse.service.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { AssetStorage } from '../storage/fs/asset-storage.js';
import type { OwnRenames } from '../storage/fs/own-renames.js';
import type { PlacementNotices } from '../storage/fs/placement-notices.js';
import { sharpRenderer, type ThumbnailRenderer } from '../thumbnails/thumbnail.renderer.js';
import { ThumbnailService } from '../thumbnails/thumbnail.service.js';
import { TimestampAllocator } from '../timestamps/timestamp-allocator.js';
import { timestampRow } from '../timestamps/timestamp-allocator.repository.js';
import { withTimestampFence } from '../timestamps/timestamp-fence.js';
import { TimestampIssuer, type TimestampSource } from '../timestamps/timestamp-issuer.js';
import type { SoloIssuer } from '../timestamps/timestamp-solo.js';
import { uploadStoreFor, type AssetUploadStore } from '../uploads/upload-store.js';
import { UploadService } from '../uploads/upload.service.js';
import { Verifier } from '../verifier/verifier.service.js';
import { WebhookMetrics } from '../webhooks/webhook-metrics.js';
import { WebhookDispatcher } from '../webhooks/webhook.dispatcher.js';
import { backlog } from '../webhooks/webhook-queue.repository.js';
import { WebhookService } from '../webhooks/webhook.service.js';

/** The opened outside I/O of one process: the index, the storage root and the blob store. */
export interface AssetResources {
  index: DatabaseHandle<Database>;
  /** This process's presence on the index: its id is on the jobs it runs. */
  presence: InstancePresence;
  storage: AssetStorage;
  blobs: BlobStore;
  /** The blob store's own renames, which the file watch then skips. */
  ownRenames: OwnRenames;
  /** Instances on one server and one folder tell each other of the files they place. */
  placements?: PlacementNotices;
  /** Set on a PostgreSQL server other instances may share: timestamps come from it. */
  soloTimestamps?: SoloIssuer;
  /** Wakes this process's change readers when any instance commits events. */
  changeSignal: ChangeSignal;
}

/** What varies between the service and a test's variant of it; the defaults are the service's. */
export interface AssembleOptions {
  logger: Logger;
  /** Epoch milliseconds; timestamps are issued from it. */
  clock: () => number;
  thumbnailRenderer?: ThumbnailRenderer;
  /** How often a running job's progress is saved (10 s). */
  jobCheckpointMs?: number;
  /** Wraps the verifier the jobs run (a test that watches or slows its scrubs). */
  wrapJobVerifier?: (real: Verifier) => Verifier;
}

/** The domain services over the resources: everything the HTTP app and the workers use. */
export interface AssetServices {
  metrics: AssetMetrics;
  verifier: Verifier;
  rebuilder: Rebuilder;
  jobs: JobService;
  assets: AssetService;
  ingest: IngestService;
  thumbnails: ThumbnailService;
  search: SearchService;
  /** Folders and duplicate groups (`GET /folders`, `GET /duplicates`). */
  browse: BrowseService;
  purge: PurgeService;
  uploadStore: AssetUploadStore;
  uploads: UploadService;
  changes: ChangeFeed;
  webhooks: WebhookService;
  /** Delivers the feed to the webhooks; started with the background work. */
  webhookDispatcher: WebhookDispatcher;
}

/** Where timestamps come from: the shared index, or process memory (the embedded database). */
function timestampSource(resources: AssetResources, clock: () => number): TimestampSource {
  const { index, soloTimestamps: solo } = resources;
  if (!solo) return new TimestampIssuer(clock, () => maxAssetTimestamp(index.db));
  return new TimestampAllocator(clock, timestampRow(index.db, solo.handle), solo);
}

/**
 * Rebuilds exclude each other across the instances on one server (an advisory lock), and no
 * instance issues timestamps from memory meanwhile (a rebuild brings some in).
 */
function rebuildLock(index: DatabaseHandle<Database>): InstanceLock {
  const lock = instanceLock(index, 'rebuild');
  return index.target.kind === 'postgres'
    ? withTimestampFence(lock, index.target.url, index.schema)
    : lock;
}

/** Builds the domain services over opened resources; nothing here does I/O. */
export function assembleServices(
  resources: AssetResources,
  config: Config,
  options: AssembleOptions,
): AssetServices {
  const { index, storage, blobs } = resources;
  const { db } = index;
  const { logger } = options;
  const { layout, identities } = storage;
  const metrics = new AssetMetrics();
  const verifier = new Verifier({
    db,
    blobs,
    logger,
    identities,
    metrics,
    peerPlacements: resources.placements,
  });
  const rebuilder = new Rebuilder({
    db,
    blobs,
    logger,
    errorThreshold: config.rebuild_error_threshold,
    lock: rebuildLock(index),
  });
  const jobs = new JobService({
    db,
    verifier: options.wrapJobVerifier ? options.wrapJobVerifier(verifier) : verifier,
    rebuilder,
    blobs,
    backfiller: {
      count: () => countUnprobed(db),
      backfill: (run) => backfillMedia({ db, blobs, logger }, run),
    },
    logger,
    instanceId: resources.presence.id,
    checkpointMs: options.jobCheckpointMs,
  });
  const assets = new AssetService({
    db,
    blobs,
    // Files are served by path (`send`); other blobs from their stream.
    ...(blobs.kind === 'fs' ? { layout } : {}),
    logger,
    missingFiles: verifier,
    identities,
    redirectDownloads: config.s3_download_redirect,
  });
  const ingest = new IngestService({
    db,
    blobs,
    timestamps: timestampSource(resources, options.clock),
    indexSession: index.pipelined,
    metrics,
    identities,
  });
  const thumbnails = new ThumbnailService({
    assets,
    layout,
    cache: blobs,
    renderer: options.thumbnailRenderer ?? sharpRenderer,
    cacheEnabled: config.enable_thumbnail_cache,
    cacheMaxBytes: config.thumbnail_cache_max_bytes,
    logger,
    metrics,
  });
  const uploadStore = uploadStoreFor(layout.uploads, config.upload_expiry_hours);
  const uploads = new UploadService({
    store: uploadStore,
    ingest,
    stagingDir: layout.tmp,
    maxBytes: config.max_upload_bytes,
  });
  const changes = new ChangeFeed({
    db,
    signal: resources.changeSignal,
    clock: options.clock,
    retentionDays: config.changes_retention_days,
    logger,
  });
  metrics.collectFrom({
    assetTotals: () => assetTotalsByState(db),
    runningJobs: () => jobs.runningSamples(),
  });
  const webhookDispatcher = new WebhookDispatcher({
    db,
    changes,
    clock: options.clock,
    logger,
    metrics: new WebhookMetrics(metrics.http.registry, () => backlog(db), options.clock),
    allowPrivate: config.webhook_allow_private,
    retryHours: config.webhook_retry_hours,
    firstRetryMs: config.webhook_retry_first_seconds * 1000,
    owner: {
      id: resources.presence.id,
      isGone: (id) => resources.presence.isGone(id),
    },
  });
  return {
    metrics,
    verifier,
    rebuilder,
    jobs,
    assets,
    ingest,
    thumbnails,
    search: new SearchService({ db }),
    browse: new BrowseService({ db }),
    purge: new PurgeService({ db, blobs }),
    uploadStore,
    uploads,
    changes,
    webhooks: new WebhookService({
      db,
      clock: options.clock,
      allowPrivate: config.webhook_allow_private,
      retentionDays: config.changes_retention_days,
      created: () => webhookDispatcher.wake(),
    }),
    webhookDispatcher,
  };
}
