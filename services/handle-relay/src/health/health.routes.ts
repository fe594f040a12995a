import { methodNotAllowed } from '@svc/envelope';
import { Router } from 'express';

/** `GET /v1/healthz`: liveness with the server name and version (spec shape, no envelope). */
export function healthRoutes(deps: { server: string; version: string }): Router {
  const router = Router();
  router
    .route('/v1/healthz')
    .get((_req, res) => {
      res.json({ status: 'ok', server: deps.server, version: deps.version });
    })
    .all(methodNotAllowed(['GET']));
  return router;
}
