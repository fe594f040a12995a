import { methodNotAllowed } from '@svc/envelope';
import { Router } from 'express';
import { readBytes } from '../http/body.js';
import type { PushService } from './push.service.js';

/** Subscription bodies are small; an endpoint URL is at most 2 KiB. */
const BODY_LIMIT = 16 * 1024;

/** `GET /v1/push/vapid-public-key`, `POST /v1/push/subscribe|unsubscribe/{handle}`. */
export function pushRoutes(service: PushService, vapidPublicKey: string): Router {
  const router = Router();
  router
    .route('/v1/push/vapid-public-key')
    .get((_req, res) => {
      res.json({ key: vapidPublicKey });
    })
    .all(methodNotAllowed(['GET']));
  router
    .route('/v1/push/subscribe/:handle')
    .post(async (req, res) => {
      const body = await readBytes(req, BODY_LIMIT);
      await service.subscribe({ handle: req.params.handle, auth: req.get('X-ID-Auth'), body });
      res.status(204).end();
    })
    .all(methodNotAllowed(['POST']));
  router
    .route('/v1/push/unsubscribe/:handle')
    .post(async (req, res) => {
      const body = await readBytes(req, BODY_LIMIT);
      await service.unsubscribe({ handle: req.params.handle, auth: req.get('X-ID-Auth'), body });
      res.status(204).end();
    })
    .all(methodNotAllowed(['POST']));
  return router;
}
