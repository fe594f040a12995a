import { methodNotAllowed, success } from '@svc/envelope';
import { Router } from 'express';
import { assetErrors } from '../errors.js';

/** `GET /healthz`: 200 once the index answers, 503 while it does not. */
export function healthRoutes(deps: { ping: () => Promise<boolean>; version: string }): Router {
  const router = Router();
  router
    .route('/healthz')
    .get(async (_req, res) => {
      if (!(await deps.ping())) throw assetErrors.databaseUnreachable();
      res.json(success({ status: 'ok', version: deps.version }));
    })
    .all(methodNotAllowed(['GET']));
  return router;
}
