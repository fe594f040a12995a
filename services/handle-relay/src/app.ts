import {
  createMetrics,
  errorHandler,
  handleRelayError,
  methodNotAllowed,
  notFound,
  requestLogging,
} from '@svc/envelope';
import type { RequestListener } from 'node:http';
import express from 'express';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { createHandleService } from './handles/handle.service.js';
import { handleRoutes } from './handles/handle.routes.js';
import { healthRoutes } from './health/health.routes.js';
import { messageRoutes } from './messages/message.routes.js';
import { KnownRecipients } from './messages/known-recipients.js';
import type { MessageServiceDeps } from './messages/message.service.js';
import { inboxLane } from './messages/inbox-lane.js';
import { sendLane } from './messages/send-lane.js';
import { createRateLimiter, rateLimit } from './rate-limit/rate-limit.middleware.js';
import { natsAuthRoutes } from './internal/nats-auth.routes.js';
import { openApiFeatures } from './openapi-features.js';
import { openApiRoutes } from './openapi/openapi.routes.js';
import { pushRoutes } from './push/push.routes.js';
import type { RelayRuntime } from './runtime.js';
import { streamRoutes } from './stream/stream.routes.js';
import { API_PREFIXES, webRoutes } from './web/web.routes.js';
import { webFingerRoutes } from './webfinger/webfinger.routes.js';

/** Everything the app needs from outside; `main.ts` builds it, tests pass their own. */
export interface AppDeps {
  config: Config;
  db: Kysely<Database>;
  logger: Logger;
  version: string;
  /** Server clock in epoch milliseconds; injected so tests can move time. */
  now: () => number;
  /** Messaging runtime: pub/sub, open streams, push fan-out (`createRelayRuntime`). */
  relay: RelayRuntime;
}

/** The app as Node's HTTP server calls it (`http.createServer(app)`, supertest). */
export type App = RequestListener;

/**
 * Builds the handle-relay HTTP app: lanes for plain `POST /v1/messages` and
 * `GET /v1/inbox/{handle}`, Express for everything else. Nothing is wired at import time.
 */
export function createApp(deps: AppDeps): App {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const metrics = createMetrics('handle_relay');
  app.use(requestLogging(deps.logger));
  app.use(metrics.middleware);
  const messages: MessageServiceDeps = {
    db: deps.db,
    now: deps.now,
    server: deps.config.server,
    notifier: deps.relay.push,
    writer: deps.relay.writer,
    knownRecipients: new KnownRecipients(),
  };
  const sendLimit = createRateLimiter({
    perMinute: deps.config.rate_limit_per_minute,
    now: deps.now,
  });
  // The hot routes first: Express tries every layer above a route on every request.
  app.use(messageRoutes({ ...messages, rateLimit: rateLimit(sendLimit) }));
  app.use(streamRoutes({ db: deps.db, now: deps.now, hub: deps.relay.streams }));
  app.use(
    pushRoutes({
      db: deps.db,
      now: deps.now,
      allowPrivateEndpoints: deps.config.push_allow_private_endpoints,
      vapidPublicKey: deps.relay.vapidPublicKey,
    }),
  );
  app
    .route('/metrics')
    .get(metrics.handler)
    .all(methodNotAllowed(['GET']));
  app.use(healthRoutes({ server: deps.config.server, version: deps.version }));
  app.use(openApiRoutes(deps.version, openApiFeatures));
  app.post(
    '/v1/register',
    rateLimit(createRateLimiter({ perMinute: deps.config.rate_limit_per_minute, now: deps.now })),
  );
  app.use(handleRoutes(createHandleService(deps)));
  app.use(webFingerRoutes(deps));
  app.use(natsAuthRoutes());
  // Feature routers go above this line: below it, unmatched API paths are JSON 404s and
  // everything else belongs to the web root.
  app.use(API_PREFIXES, notFound);
  app.use(
    webRoutes({ server: deps.config.server, version: deps.version, webDir: deps.config.web_dir }),
  );
  app.use(notFound);
  app.use(errorHandler(handleRelayError, deps.logger));
  const send = sendLane({ messages, limit: sendLimit, logger: deps.logger, metrics });
  const inbox = inboxLane({ messages, logger: deps.logger, metrics });
  return (req, res) => {
    if (!send(req, res) && !inbox(req, res)) app(req, res);
  };
}
