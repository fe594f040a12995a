import { methodNotAllowed } from '@svc/envelope';
import { Router } from 'express';
import type { WebFingerService } from './webfinger.service.js';

/** `GET /.well-known/webfinger`: readable from any origin, errors included. */
export function webFingerRoutes(service: WebFingerService): Router {
  const router = Router();
  router
    .route('/.well-known/webfinger')
    .all((_req, res, next) => {
      res.setHeader('Access-Control-Allow-Origin', '*');
      next();
    })
    .get(async (req, res) => {
      const jrd = await service.resolve(req.query.resource);
      // RFC 7033's media type as is: Express adds a charset to string bodies, not to bytes.
      res.setHeader('Content-Type', 'application/jrd+json');
      res.send(Buffer.from(JSON.stringify(jrd)));
    })
    .all(methodNotAllowed(['GET']));
  return router;
}
