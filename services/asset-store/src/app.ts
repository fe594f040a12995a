import {
  apiDocsRoutes,
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
import express from 'express';
import { adminRoutes } from './admin/admin.routes.js';
import { API_BASE } from './api-base.js';
import { ApiAuth } from './auth/api-auth.js';
import { assetRoutes, onlyContainerZero } from './assets/asset.routes.js';
import { ingestLane } from './assets/ingest-lane.js';
import { ingestHandler } from './assets/ingest.handler.js';
import { changeRoutes } from './changes/change.routes.js';
import { CONSOLE_BASE, consoleRoutes, faviconRoute } from './console/console.routes.js';
import { fromDatabaseError } from './db/pg-errors.js';
import { openApiFeatures } from './openapi-features.js';
import { healthRoutes } from './health/health.routes.js';
import { jobRoutes } from './jobs/job.routes.js';
import { webhookRoutes } from './webhooks/webhook.routes.js';
import { openApiRoutes } from './openapi/openapi.routes.js';
import type { AssetRuntime } from './runtime/asset-runtime.js';
import { searchRoutes } from './search/search.routes.js';
import { browseRoutes } from './browse/browse.routes.js';
import { thumbnailRoutes } from './thumbnails/thumbnail.routes.js';
import { TusUploads } from './uploads/tus-uploads.js';
import { uploadRoutes } from './uploads/upload.routes.js';
import { SERVICE_DIR } from './version.js';

/**
 * What the app is built from: the runtime's configuration, logger, version, health probe,
 * services and blob store (`createAssetRuntime`, which `main.ts` and the tests both use).
 */
export type AppRuntime = Pick<
  AssetRuntime,
  'config' | 'logger' | 'version' | 'ping' | 'storageProblem' | 'services' | 'resources'
>;

/** What only the HTTP layer decides. */
export interface AppOptions {
  /** The built console's folder; `web/dist` of this service when absent. */
  consoleDir?: string;
  /** How often a quiet change stream pings; 15 s when absent (tests shorten it). */
  streamPingMs?: number;
}

/** The app as Node's HTTP server calls it (`http.createServer(app)`, supertest). */
export type App = RequestListener;

/**
 * Builds the asset-store HTTP app: the ingest lane for plain `POST /api/v1/can/0/ingest`,
 * Express for everything else. Nothing is wired at import time.
 */
export function createApp(runtime: AppRuntime, options: AppOptions = {}): App {
  const { config, logger, services } = runtime;
  const { blobs } = runtime.resources;
  const { metrics, verifier, rebuilder, jobs, assets, ingest, thumbnails } = services;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // One reading of the client address (`trust_proxy`) for routes, the lane and logs.
  const clientAddress = clientAddressFunction(config.trust_proxy);
  app.set('trust proxy', expressTrustProxy(config.trust_proxy));
  app.use(requestLogging(logger, clientAddress));
  app.use(metrics.http.middleware);
  const ingestUpload = ingestHandler({
    ingest,
    blobs,
    maxUploadBytes: config.max_upload_bytes,
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
      purge: services.purge,
    }),
  );
  app.use(API_BASE, webhookRoutes({ adminToken: config.admin_token, webhooks: services.webhooks }));
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
  const tus = new TusUploads({
    store: services.uploadStore,
    uploads: services.uploads,
    maxBytes: config.max_upload_bytes,
  });
  app.use(API_BASE, uploadRoutes({ tus }));
  app.use(API_BASE, searchRoutes({ search: services.search }));
  app.use(API_BASE, browseRoutes({ browse: services.browse }));
  app.use(
    API_BASE,
    changeRoutes({
      changes: services.changes,
      ...(options.streamPingMs ? { pingMs: options.streamPingMs } : {}),
    }),
  );
  app.use(API_BASE, thumbnailRoutes({ thumbnails }));
  app
    .route('/metrics')
    .get(metrics.http.handler)
    .all(methodNotAllowed(['GET']));
  if (config.console) {
    const consoleDir = options.consoleDir ?? path.join(SERVICE_DIR, 'web', 'dist');
    app.use(faviconRoute({ dir: consoleDir }));
    // A person who opens the service's address finds the console (issue 42).
    app.get('/', (_req, res) => res.status(308).location(`${CONSOLE_BASE}/`).end());
    app.use(
      CONSOLE_BASE,
      consoleRoutes({
        dir: consoleDir,
        // The grid's first page (web/src/grid-pages.ts: CHUNK items, no filter, the timeline
        // of web/src/filters.ts), spelled as the grid asks it so the browser uses the preload.
        ...(config.api_token ? {} : { firstPage: `${API_BASE}/search?sort=taken&limit=200` }),
      }),
    );
  }
  app.use(
    healthRoutes({
      ping: () => runtime.ping(),
      storageProblem: () => runtime.storageProblem(),
      version: runtime.version,
    }),
  );
  app.use(openApiRoutes({ version: runtime.version, features: openApiFeatures }));
  app.use(apiDocsRoutes({ title: 'asset-store' }));
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
