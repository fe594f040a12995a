import { methodNotAllowed } from '@svc/envelope';
import { Router } from 'express';
import { resolveWebFinger, type WebFingerDeps } from './webfinger.service.js';

/** `GET /.well-known/webfinger`: readable from any origin, errors included. */
export function webFingerRoutes(deps: WebFingerDeps): Router {
  const router = Router();
  router
    .route('/.well-known/webfinger')
    .all((_req, res, next) => {
      res.setHeader('Access-Control-Allow-Origin', '*');
      next();
    })
    .get(async (req, res) => {
      const jrd = await resolveWebFinger(deps, req.query.resource);
      res.type('application/jrd+json').send(JSON.stringify(jrd));
    })
    .all(methodNotAllowed(['GET']));
  return router;
}
