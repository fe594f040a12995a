import { methodNotAllowed, success } from '@svc/envelope';
import { Router } from 'express';
import type { Verifier } from '../verifier/verifier.service.js';
import { adminAuth } from '../auth/admin-auth.js';
import { parseHash } from '../validation.js';
import { parseRebuildMode } from './admin.schemas.js';
import type { PurgeService } from './purge.service.js';
import type { Rebuilder } from './rebuild.service.js';

/** What the admin routes need. */
export interface AdminRouteDeps {
  adminToken: string | undefined;
  verifier: Verifier;
  rebuilder: Rebuilder;
  purge: PurgeService;
}

/** `/admin/*`, mounted under `/api/v1/can/0`; the bearer check runs before anything else. */
export function adminRoutes(deps: AdminRouteDeps): Router {
  const router = Router();
  router.use('/admin', adminAuth(deps.adminToken));
  router
    .route('/admin/verify')
    .post(async (_req, res) => {
      res.json(success(await deps.verifier.scrub()));
    })
    .all(methodNotAllowed(['POST']));
  router
    .route('/admin/rebuild')
    .post(async (req, res) => {
      res.json(success(await deps.rebuilder.rebuild(parseRebuildMode(req.query))));
    })
    .all(methodNotAllowed(['POST']));
  router
    .route('/admin/asset/:hash')
    .delete(async (req, res) => {
      await deps.purge.purge(parseHash(req.params.hash));
      res.json(success('purged'));
    })
    .all(methodNotAllowed(['DELETE']));
  return router;
}
