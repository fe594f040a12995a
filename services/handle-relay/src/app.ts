import {
  apiDocsRoutes,
  clientAddressFunction,
  expressTrustProxy,
  errorHandler,
  handleRelayError,
  methodNotAllowed,
  notFound,
  requestLogging,
  type ClientAddress,
} from '@svc/envelope';
import type { RequestListener } from 'node:http';
import express from 'express';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { fromDatabaseError } from './db/pg-errors.js';
import { HandleService } from './handles/handle.service.js';
import { handleRoutes } from './handles/handle.routes.js';
import { healthRoutes } from './health/health.routes.js';
import { natsAuthRoutes } from './internal/nats-auth.routes.js';
import { KnownRecipients } from './messages/known-recipients.js';
import { inboxHandler, sendHandler } from './messages/message.handlers.js';
import { inboxLane, sendLane } from './messages/message.lanes.js';
import { messageRoutes, type MessageHandlers } from './messages/message.routes.js';
import { MessageService } from './messages/message.service.js';
import { openApiFeatures } from './openapi-features.js';
import { openApiRoutes } from './openapi/openapi.routes.js';
import { pushRoutes } from './push/push.routes.js';
import { PushService } from './push/push.service.js';
import { createRateLimiter, rateLimit } from './rate-limit/rate-limit.middleware.js';
import type { RelayRuntime } from './runtime.js';
import { sigchainRoutes } from './sigchain/sigchain.routes.js';
import { SigchainService } from './sigchain/sigchain.service.js';
import { streamRoutes } from './stream/stream.routes.js';
import { logRoutes } from './translog/log.routes.js';
import { StreamService } from './stream/stream.service.js';
import { API_PREFIXES, webRoutes } from './web/web.routes.js';
import { webFingerRoutes } from './webfinger/webfinger.routes.js';
import { WebFingerService } from './webfinger/webfinger.service.js';

/** Everything the app needs from outside; `main.ts` builds it, tests pass their own. */
export interface AppDeps {
  config: Config;
  db: Kysely<Database>;
  /** True when the database answers: health reflects it. */
  ping: () => Promise<boolean>;
  logger: Logger;
  version: string;
  /** Server clock in epoch milliseconds; injected so tests can move time. */
  now: () => number;
  /** Messaging runtime: pub/sub, open streams, push fan-out (`createRelayRuntime`). */
  relay: RelayRuntime;
  /** Benchmarks only (bench:identity's baseline): registrations write no eldest link. */
  registrationsWithoutLog?: boolean;
}

/** The app as Node's HTTP server calls it (`http.createServer(app)`, supertest). */
export type App = RequestListener;

/** The send and inbox handlers, mounted both in their lanes and as Express routes. */
function messageHandlers(deps: AppDeps, clientAddress: ClientAddress): MessageHandlers {
  const { config, db, now, relay } = deps;
  const messages = new MessageService({
    db,
    now,
    server: config.server,
    notifier: relay.push,
    writer: relay.writer,
    knownRecipients: new KnownRecipients(),
  });
  const sendLimit = createRateLimiter({
    route: 'send',
    perMinute: config.rate_limit_per_minute,
    buckets: relay.rateBuckets,
    clientAddress,
  });
  return { send: sendHandler(messages, sendLimit), inbox: inboxHandler(messages) };
}

/**
 * Builds the handle-relay HTTP app: lanes for plain `POST /v1/messages` and
 * `GET /v1/inbox/{handle}`, Express for everything else. Nothing is wired at import time.
 */
export function createApp(deps: AppDeps): App {
  const { config, db, now, relay, logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const metrics = relay.metrics.http;
  const clientAddress = clientAddressFunction(config.trust_proxy);
  // One reading of the client address (`trust_proxy`) for routes, lanes, limits and logs.
  app.set('trust proxy', expressTrustProxy(config.trust_proxy));
  app.use(requestLogging(logger, clientAddress));
  app.use(metrics.middleware);
  const handlers = messageHandlers(deps, clientAddress);
  // The hot routes first: Express tries every layer above a route on every request.
  app.use(messageRoutes(handlers));
  app.use(streamRoutes(new StreamService({ db, now, hub: relay.streams })));
  const push = new PushService({
    db,
    now,
    allowPrivateEndpoints: config.push_allow_private_endpoints,
  });
  app.use(pushRoutes(push, relay.vapidPublicKey));
  app
    .route('/metrics')
    .get(metrics.handler)
    .all(methodNotAllowed(['GET']));
  app.use(
    healthRoutes({
      server: config.server,
      version: deps.version,
      ping: deps.ping,
      logKey: () => relay.log.keyStatus,
    }),
  );
  app.use(openApiRoutes(deps.version, openApiFeatures));
  app.use(apiDocsRoutes({ title: 'handle-relay' }));
  app.post(
    '/v1/register',
    rateLimit(
      createRateLimiter({
        route: 'register',
        perMinute: config.rate_limit_per_minute,
        buckets: relay.rateBuckets,
        clientAddress,
      }),
    ),
  );
  app.use(
    handleRoutes(
      new HandleService({
        db,
        config,
        now,
        metrics: relay.metrics,
        log: !deps.registrationsWithoutLog,
      }),
    ),
  );
  app.use(
    sigchainRoutes(
      new SigchainService({
        db,
        config,
        now,
        notifyOthers: relay.instancesShareRotations,
        rotated: (handle, oldKey) => relay.rotated(handle, oldKey),
      }),
    ),
  );
  app.use(logRoutes(relay.log));
  app.use(webFingerRoutes(new WebFingerService({ db, config })));
  app.use(natsAuthRoutes());
  // Feature routers go above this line: below it, unmatched API paths are JSON 404s and
  // everything else belongs to the web root.
  app.use(API_PREFIXES, notFound);
  app.use(webRoutes({ server: config.server, version: deps.version, webDir: config.web_dir }));
  app.use(notFound);
  app.use(errorHandler(handleRelayError, logger, fromDatabaseError));
  const laneDeps = { handlers, translate: fromDatabaseError, logger, metrics, clientAddress };
  const send = sendLane(laneDeps);
  const inbox = inboxLane(laneDeps);
  return (req, res) => {
    if (!send(req, res) && !inbox(req, res)) app(req, res);
  };
}
