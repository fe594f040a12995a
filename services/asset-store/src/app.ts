import {
  assetStoreError,
  createMetrics,
  errorHandler,
  methodNotAllowed,
  notFound,
  requestLogging,
} from '@svc/envelope';
import type { RequestListener } from 'node:http';
import type { PipelinedSession } from '@svc/database';
import express from 'express';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { adminRoutes } from './admin/admin.routes.js';
import { Rebuilder } from './admin/rebuild.service.js';
import { AssetService } from './assets/asset.service.js';
import { assetRoutes, multipartIngest, onlyContainerZero } from './assets/asset.routes.js';
import { ingestLane } from './assets/ingest-lane.js';
import { maxAssetTimestamp } from './assets/asset.repository.js';
import { IngestService } from './assets/ingest.service.js';
import { TimestampIssuer } from './assets/timestamp-issuer.js';
import { API_BASE } from './api-base.js';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { healthRoutes } from './health/health.routes.js';
import { openApiRoutes } from './openapi/openapi.routes.js';
import { searchRoutes } from './search/search.routes.js';
import type { AssetStorage } from './storage/asset-storage.js';
import type { OwnRenames } from './storage/own-renames.js';
import { sharpRenderer, type ThumbnailRenderer } from './thumbnails/thumbnail.renderer.js';
import { thumbnailRoutes } from './thumbnails/thumbnail.routes.js';
import { ThumbnailService } from './thumbnails/thumbnail.service.js';
import { Verifier } from './verifier/verifier.service.js';

/** Everything the app needs from outside; `main.ts` builds it, tests pass their own. */
export interface AppDeps {
  config: Config;
  db: Kysely<Database>;
  ping: () => Promise<boolean>;
  logger: Logger;
  version: string;
  /** The prepared storage root and its attribute port (`openAssetStorage`). */
  storage: AssetStorage;
  /** Epoch milliseconds; timestamps are issued from it. */
  clock: () => number;
  /** Image resizing; sharp unless a test wraps it. */
  thumbnailRenderer?: ThumbnailRenderer;
  /** The verifier `main.ts` also runs in the background; built here when absent. */
  verifier?: Verifier;
  /** Shared with the verifier's watch, which then skips the echo of each ingest's rename. */
  ownRenames?: OwnRenames;
  /**
   * Set when the index is a server (`postgres://`), not the embedded database: the ingest
   * writer's pipelined connection, on which a transaction may stay open while files are
   * fsynced (see `AssetIndexWriter`).
   */
  indexSession?: PipelinedSession;
}

function adminDeps(deps: AppDeps, verifier: Verifier) {
  const { db, logger } = deps;
  const { layout, attributes } = deps.storage;
  return {
    adminToken: deps.config.admin_token,
    verifier,
    rebuilder: new Rebuilder({
      db,
      layout,
      attributes,
      logger,
      errorThreshold: deps.config.rebuild_error_threshold,
    }),
    purge: { db, layout, attributes },
  };
}

/** The app as Node's HTTP server calls it (`http.createServer(app)`, supertest). */
export type App = RequestListener;

/**
 * Builds the asset-store HTTP app: the ingest lane for plain `POST /api/v1/can/0/ingest`,
 * Express for everything else. Nothing is wired at import time.
 */
export function createApp(deps: AppDeps): App {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const metrics = createMetrics('asset_store');
  app.use(requestLogging(deps.logger));
  app.use(metrics.middleware);
  const { layout, attributes } = deps.storage;
  const verifier =
    deps.verifier ?? new Verifier({ db: deps.db, layout, attributes, logger: deps.logger });
  // The API routers come first: each layer a request passes costs it path matching, and an
  // ingest is the request that must be cheapest. No other layer matches a path under
  // API_BASE, so the order changes no answer. Before every other router: the admin bearer
  // check precedes any body or path parsing.
  app.use(API_BASE, adminRoutes(adminDeps(deps, verifier)));
  const timestamps = new TimestampIssuer(deps.clock, () => maxAssetTimestamp(deps.db));
  const assets = new AssetService({
    db: deps.db,
    storage: deps.storage,
    logger: deps.logger,
    verifier,
  });
  const assetDeps = {
    assets,
    ingest: new IngestService({
      db: deps.db,
      storage: deps.storage,
      timestamps,
      ownRenames: deps.ownRenames,
      indexSession: deps.indexSession,
    }),
    tmpDir: deps.storage.layout.tmp,
    maxUploadBytes: deps.config.max_upload_bytes,
    maxJsonBytes: deps.config.max_json_bytes,
  };
  const ingestMultipart = multipartIngest(assetDeps);
  app.use(API_BASE, assetRoutes(assetDeps, ingestMultipart));
  app.use(API_BASE, searchRoutes(deps));
  const thumbnails = new ThumbnailService({
    assets,
    layout,
    renderer: deps.thumbnailRenderer ?? sharpRenderer,
    cacheEnabled: deps.config.enable_thumbnail_cache,
    logger: deps.logger,
  });
  app.use(API_BASE, thumbnailRoutes({ thumbnails }));
  app
    .route('/metrics')
    .get(metrics.handler)
    .all(methodNotAllowed(['GET']));
  app.use(healthRoutes(deps));
  app.use(openApiRoutes(deps));
  app.use('/api/v1/can/:container', onlyContainerZero);
  app.use(notFound);
  app.use(errorHandler(assetStoreError, deps.logger));
  const lane = ingestLane({ ingestMultipart, logger: deps.logger, metrics });
  return (req, res) => {
    if (!lane(req, res)) app(req, res);
  };
}
