import { methodNotAllowed } from '@svc/envelope';
import { Router } from 'express';
import { relayErrors } from '../errors.js';
import type { LogKeyStatus } from '../translog/log.service.js';

/**
 * `GET /v1/healthz`: the server name and version (spec shape, no envelope; plus the
 * transparency log's key, and `log_key_problem` when it changed) while the
 * database answers, 503 while it does not, so a balancer stops sending work it would fail.
 */
export function healthRoutes(deps: {
  server: string;
  version: string;
  ping: () => Promise<boolean>;
  /** The transparency log key's state: a lost or replaced key is said here. */
  logKey: () => LogKeyStatus;
}): Router {
  const router = Router();
  router
    .route('/v1/healthz')
    .get(async (_req, res) => {
      if (!(await deps.ping())) throw relayErrors.databaseUnreachable();
      const logKey = deps.logKey();
      res.json({
        status: 'ok',
        server: deps.server,
        version: deps.version,
        log_key: logKey.key,
        ...(logKey.problem ? { log_key_problem: logKey.problem } : {}),
      });
    })
    .all(methodNotAllowed(['GET']));
  return router;
}
