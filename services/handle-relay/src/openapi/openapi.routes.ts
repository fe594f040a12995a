import { methodNotAllowed } from '@svc/envelope';
import { Router } from 'express';
import { buildOpenApi } from './openapi.js';

/** `GET /openapi.json`, built once. */
export function openApiRoutes(version: string): Router {
  const doc = buildOpenApi(version);
  const router = Router();
  router
    .route('/openapi.json')
    .get((_req, res) => {
      res.json(doc);
    })
    .all(methodNotAllowed(['GET']));
  return router;
}
