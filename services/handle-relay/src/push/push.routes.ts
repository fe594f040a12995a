import { methodNotAllowed } from '@svc/envelope';
import { Router } from 'express';
import { rawBody } from '../http/body.js';
import { subscribe, unsubscribe, type PushServiceDeps } from './push.service.js';

/** Subscription bodies are small; an endpoint URL is at most 2 KiB. */
const BODY_LIMIT = '16kb';

/** `GET /v1/push/vapid-public-key`, `POST /v1/push/subscribe|unsubscribe/{handle}`. */
export function pushRoutes(deps: PushServiceDeps & { vapidPublicKey: string }): Router {
  const router = Router();
  router
    .route('/v1/push/vapid-public-key')
    .get((_req, res) => {
      res.json({ key: deps.vapidPublicKey });
    })
    .all(methodNotAllowed(['GET']));
  router
    .route('/v1/push/subscribe/:handle')
    .post(rawBody(BODY_LIMIT), async (req, res) => {
      await subscribe(deps, {
        handle: req.params.handle,
        auth: req.get('X-ID-Auth'),
        body: req.body,
      });
      res.status(204).end();
    })
    .all(methodNotAllowed(['POST']));
  router
    .route('/v1/push/unsubscribe/:handle')
    .post(rawBody(BODY_LIMIT), async (req, res) => {
      await unsubscribe(deps, {
        handle: req.params.handle,
        auth: req.get('X-ID-Auth'),
        body: req.body,
      });
      res.status(204).end();
    })
    .all(methodNotAllowed(['POST']));
  return router;
}
