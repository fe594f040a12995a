import type { Router } from 'express';
import { Router as createRouter } from 'express';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { pushRoutes } from '../push/push.routes.js';
import { rateLimit, type RateLimiter } from '../rate-limit/rate-limit.middleware.js';
import { streamRoutes } from '../stream/stream.routes.js';
import { messageRoutes } from './message.routes.js';
import type { MessageServiceDeps } from './message.service.js';
import type { RelayRuntime } from './relay-runtime.js';

/** What the messaging routes need from the app's deps. */
export interface RelayRoutesDeps {
  config: Config;
  db: Kysely<Database>;
  now: () => number;
  relay: RelayRuntime;
  /** The send rules' deps, shared with the send lane ahead of Express. */
  messages: MessageServiceDeps;
  /** `POST /v1/messages`'s limiter, shared with the send lane. */
  sendLimit: RateLimiter;
}

/** Send, inbox, live stream and push subscription routes. */
export function relayRoutes(deps: RelayRoutesDeps): Router {
  const { config, db, now, relay } = deps;
  const router = createRouter();
  router.use(messageRoutes({ ...deps.messages, rateLimit: rateLimit(deps.sendLimit) }));
  router.use(streamRoutes({ db, now, hub: relay.streams }));
  router.use(
    pushRoutes({
      db,
      now,
      allowPrivateEndpoints: config.push_allow_private_endpoints,
      vapidPublicKey: relay.vapidPublicKey,
    }),
  );
  return router;
}
