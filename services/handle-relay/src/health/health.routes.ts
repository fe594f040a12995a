import { methodNotAllowed } from '@svc/envelope';
import { Router } from 'express';
import { relayErrors } from '../errors.js';

/**
 * `GET /v1/healthz`: the server name and version (spec shape, no envelope) while the
 * database answers, 503 while it does not, so a balancer stops sending work it would fail.
 */
export function healthRoutes(deps: {
  server: string;
  version: string;
  ping: () => Promise<boolean>;
}): Router {
  const router = Router();
  router
    .route('/v1/healthz')
    .get(async (_req, res) => {
      if (!(await deps.ping())) throw relayErrors.databaseUnreachable();
      res.json({ status: 'ok', server: deps.server, version: deps.version });
    })
    .all(methodNotAllowed(['GET']));
  return router;
}
