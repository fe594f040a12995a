import { methodNotAllowed, success } from '@svc/envelope';
import { Router } from 'express';
import { assetErrors } from '../errors.js';

/** What health asks: the index, and the blob store (S3's reachability, known cheaply). */
export interface HealthDeps {
  ping: () => Promise<boolean>;
  /** Why the storage cannot serve now, or undefined (`S3Reachability`: no S3 call per check). */
  storageProblem: () => Promise<string | undefined>;
  version: string;
}

/** `GET /healthz`: 200 once the index and the storage answer, 503 with the reason while not. */
export function healthRoutes(deps: HealthDeps): Router {
  const router = Router();
  router
    .route('/healthz')
    .get(async (_req, res) => {
      if (!(await deps.ping())) throw assetErrors.databaseUnreachable();
      const problem = await deps.storageProblem();
      if (problem !== undefined) throw assetErrors.storageUnreachable(problem);
      res.json(success({ status: 'ok', version: deps.version }));
    })
    .all(methodNotAllowed(['GET']));
  return router;
}
