import {
  assetStoreError,
  createMetrics,
  errorHandler,
  notFound,
  requestLogging,
} from '@svc/envelope';
import express, { type Express } from 'express';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { healthRoutes } from './health/health.routes.js';
import { searchRoutes } from './search/search.routes.js';

/** Everything the app needs from outside; `main.ts` builds it, tests pass their own. */
export interface AppDeps {
  config: Config;
  db: Kysely<Database>;
  ping: () => Promise<boolean>;
  logger: Logger;
  version: string;
}

/** Builds the asset-store HTTP app; nothing is wired at import time. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const metrics = createMetrics('asset_store');
  app.use(requestLogging(deps.logger));
  app.use(metrics.middleware);
  app.get('/metrics', metrics.handler);
  app.use(healthRoutes(deps));
  app.use('/api/v1/can/0', searchRoutes(deps));
  app.use(notFound);
  app.use(errorHandler(assetStoreError, deps.logger));
  return app;
}
