import { Router } from 'express';

/** `GET /v1/healthz`: liveness with the server name and version (spec shape, no envelope). */
export function healthRoutes(deps: { server: string; version: string }): Router {
  const router = Router();
  router.get('/v1/healthz', (_req, res) => {
    res.json({ status: 'ok', server: deps.server, version: deps.version });
  });
  return router;
}
