import { randomUUID } from 'node:crypto';
import {
  assetStoreError,
  clientAddressFunction,
  expressTrustProxy,
  errorHandler,
  methodNotAllowed,
  notFound,
  requestLogging,
} from '@svc/envelope';
import type { RequestListener } from 'node:http';
import path from 'node:path';
import type { PipelinedSession } from '@svc/database';
import express from 'express';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { adminRoutes } from './admin/admin.routes.js';
import { PurgeService } from './admin/purge.service.js';
import { Rebuilder } from './admin/rebuild.service.js';
import { API_BASE } from './api-base.js';
import { ApiAuth } from './auth/api-auth.js';
import { maxAssetTimestamp } from './assets/asset.repository.js';
import { assetRoutes, onlyContainerZero } from './assets/asset.routes.js';
import { AssetService } from './assets/asset.service.js';
import { ingestLane } from './assets/ingest-lane.js';
import { ingestHandler } from './assets/ingest.handler.js';
import { IngestService } from './assets/ingest.service.js';
import { TimestampAllocator } from './timestamps/timestamp-allocator.js';
import { timestampRow } from './timestamps/timestamp-allocator.repository.js';
import { TimestampIssuer, type TimestampSource } from './timestamps/timestamp-issuer.js';
import type { SoloIssuer } from './timestamps/timestamp-solo.js';
import type { Config } from './config.js';
import { CONSOLE_BASE, consoleRoutes } from './console/console.routes.js';
import type { Database } from './db/database.js';
import { fromDatabaseError } from './db/pg-errors.js';
import { openApiFeatures } from './openapi-features.js';
import { healthRoutes } from './health/health.routes.js';
import { jobRoutes } from './jobs/job.routes.js';
import { JobService } from './jobs/job.service.js';
import { AssetMetrics } from './metrics/asset-metrics.js';
import { assetTotalsByState } from './metrics/asset-totals.repository.js';
import { openApiRoutes } from './openapi/openapi.routes.js';
import { searchRoutes } from './search/search.routes.js';
import { SearchService } from './search/search.service.js';
import type { AssetStorage } from './storage/fs/asset-storage.js';
import type { BlobStore } from './storage/blob-store.js';
import { FsBlobStore } from './storage/fs/fs-blob-store.js';
import type { OwnRenames } from './storage/fs/own-renames.js';
import { sharpRenderer, type ThumbnailRenderer } from './thumbnails/thumbnail.renderer.js';
import { thumbnailRoutes } from './thumbnails/thumbnail.routes.js';
import { ThumbnailService } from './thumbnails/thumbnail.service.js';
import { TusUploads } from './uploads/tus-uploads.js';
import { uploadRoutes } from './uploads/upload.routes.js';
import { UploadService } from './uploads/upload.service.js';
import { uploadStoreFor, type AssetUploadStore } from './uploads/upload-store.js';
import { Verifier } from './verifier/verifier.service.js';
import { SERVICE_DIR } from './version.js';

/** Everything the app needs from outside; `main.ts` builds it, tests pass their own. */
export interface AppDeps {
  config: Config;
  db: Kysely<Database>;
  ping: () => Promise<boolean>;
  logger: Logger;
  version: string;
  /** The prepared storage root and its attribute port (`openAssetStorage`). */
  storage: AssetStorage;
  /**
   * Where asset contents live (ingest, downloads, attributes, the verifier, purge, rebuild,
   * the thumbnail cache); the storage root (`FsBlobStore`) when absent. The file system
   * watch still uses the storage root directly.
   */
  blobs?: BlobStore;
  /** Epoch milliseconds; timestamps are issued from it. */
  clock: () => number;
  /** Image resizing; sharp unless a test wraps it. */
  thumbnailRenderer?: ThumbnailRenderer;
  /** The verifier `main.ts` also runs in the background; built here when absent. */
  verifier?: Verifier;
  /** The rebuilder `main.ts` runs at start-up; built here when absent. */
  rebuilder?: Rebuilder;
  /** `/metrics`; `main.ts` builds it first, as the verifier it builds reports to it. */
  metrics?: AssetMetrics;
  /** Verify and rebuild jobs; `main.ts` builds them to stop them at shutdown. */
  jobs?: JobService;
  /**
   * The id of this instance's presence on the index (`holdInstancePresence`), recorded on the
   * jobs built here; without one (a test), a random id no presence holds.
   */
  instanceId?: string;
  /** Shared with the verifier's watch, which then skips the echo of each ingest's rename. */
  ownRenames?: OwnRenames;
  /**
   * Set when the index is a server (`postgres://`), not the embedded database: the ingest
   * writer's pipelined connection, on which a transaction may stay open while files are
   * fsynced (see `AssetIndexWriter`).
   */
  indexSession?: PipelinedSession;
  /**
   * Set when the index is a PostgreSQL server other instances may share: timestamps are then
   * allocated in it (issued from memory while this instance is alone on it), else from this
   * process's memory (the embedded database).
   */
  soloTimestamps?: SoloIssuer;
  /** Resumable uploads under `.tmp/uploads/`; `main.ts` also sweeps them. Built when absent. */
  uploadStore?: AssetUploadStore;
  /** The built console's folder; `web/dist` of this service when absent. */
  consoleDir?: string;
}

/** Where this app's timestamps come from: the shared index, or process memory. */
function timestampSource(deps: AppDeps): TimestampSource {
  const { db, clock, soloTimestamps: solo } = deps;
  if (!solo) return new TimestampIssuer(clock, () => maxAssetTimestamp(db));
  return new TimestampAllocator(clock, timestampRow(db, solo.handle), solo);
}

/** The app as Node's HTTP server calls it (`http.createServer(app)`, supertest). */
export type App = RequestListener;

/**
 * Builds the asset-store HTTP app: the ingest lane for plain `POST /api/v1/can/0/ingest`,
 * Express for everything else. Nothing is wired at import time.
 */
export function createApp(deps: AppDeps): App {
  const { db, logger, config } = deps;
  const { layout, attributes, identities } = deps.storage;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const metrics = deps.metrics ?? new AssetMetrics();
  // One reading of the client address (`trust_proxy`) for routes, the lane and logs.
  const clientAddress = clientAddressFunction(config.trust_proxy);
  app.set('trust proxy', expressTrustProxy(config.trust_proxy));
  app.use(requestLogging(logger, clientAddress));
  app.use(metrics.http.middleware);
  const blobs = deps.blobs ?? new FsBlobStore(deps.storage, deps.ownRenames);
  const verifier =
    deps.verifier ?? new Verifier({ db, layout, attributes, blobs, logger, identities, metrics });
  const assets = new AssetService({
    db,
    blobs,
    // Files are served by path (`send`); other blobs from their stream.
    ...(blobs.kind === 'fs' ? { layout } : {}),
    logger,
    missingFiles: verifier,
    identities,
  });
  const ingest = new IngestService({
    db,
    blobs,
    timestamps: timestampSource(deps),
    indexSession: deps.indexSession,
    metrics,
    identities,
  });
  const ingestUpload = ingestHandler({
    ingest,
    blobs,
    maxUploadBytes: config.max_upload_bytes,
  });
  const rebuilder =
    deps.rebuilder ??
    new Rebuilder({
      db,
      layout,
      attributes,
      blobs,
      logger,
      errorThreshold: config.rebuild_error_threshold,
    });
  const thumbnails = new ThumbnailService({
    assets,
    layout,
    cache: blobs,
    renderer: deps.thumbnailRenderer ?? sharpRenderer,
    cacheEnabled: config.enable_thumbnail_cache,
    cacheMaxBytes: config.thumbnail_cache_max_bytes,
    logger,
    metrics,
  });
  const jobs =
    deps.jobs ??
    new JobService({
      db,
      verifier,
      rebuilder,
      blobs,
      logger,
      instanceId: deps.instanceId ?? randomUUID(),
    });
  metrics.collectFrom({
    assetTotals: () => assetTotalsByState(db),
    runningJobs: () => jobs.runningSamples(),
  });
  // The API routers come first: each layer a request passes costs it path matching, and an
  // ingest is the request that must be cheapest. No other layer matches a path under
  // API_BASE, so the order changes no answer. Before every other router: the admin bearer
  // check precedes any body or path parsing.
  app.use(
    API_BASE,
    adminRoutes({
      adminToken: config.admin_token,
      verifier,
      rebuilder,
      purge: new PurgeService({ db, blobs }),
    }),
  );
  app.use(
    API_BASE,
    jobRoutes({ adminToken: config.admin_token, jobs, maxJsonBytes: config.max_json_bytes }),
  );
  // Admin routes check their own token first; everything else under API_BASE needs
  // `api_token` when one is set.
  const apiAuth = new ApiAuth(config.api_token, config.admin_token);
  app.use(API_BASE, apiAuth.middleware());
  app.use(
    API_BASE,
    assetRoutes({ assets, ingest, ingestUpload, maxJsonBytes: config.max_json_bytes }),
  );
  const uploadStore =
    deps.uploadStore ?? uploadStoreFor(layout.uploads, config.upload_expiry_hours);
  const tus = new TusUploads({
    store: uploadStore,
    uploads: new UploadService({
      store: uploadStore,
      ingest,
      stagingDir: layout.tmp,
      maxBytes: config.max_upload_bytes,
    }),
    maxBytes: config.max_upload_bytes,
  });
  app.use(API_BASE, uploadRoutes({ tus }));
  app.use(API_BASE, searchRoutes({ search: new SearchService({ db }) }));
  app.use(API_BASE, thumbnailRoutes({ thumbnails }));
  app
    .route('/metrics')
    .get(metrics.http.handler)
    .all(methodNotAllowed(['GET']));
  if (config.console) {
    app.use(
      CONSOLE_BASE,
      consoleRoutes({
        dir: deps.consoleDir ?? path.join(SERVICE_DIR, 'web', 'dist'),
        // The grid's first page (web/src/grid.ts: CHUNK items, no filter).
        ...(config.api_token ? {} : { firstPage: `${API_BASE}/list?limit=200` }),
      }),
    );
  }
  app.use(healthRoutes(deps));
  app.use(openApiRoutes({ version: deps.version, features: openApiFeatures }));
  app.use('/api/v1/can/:container', onlyContainerZero);
  app.use(notFound);
  app.use(errorHandler(assetStoreError, logger, fromDatabaseError));
  const lane = ingestLane({
    ingestUpload,
    logger,
    metrics: metrics.http,
    clientAddress,
    allows: (req) => apiAuth.allows(req),
  });
  return (req, res) => {
    if (!lane(req, res)) app(req, res);
  };
}
