import { methodNotAllowed } from '@svc/envelope';
import { Router } from 'express';
import { buildOpenApi } from './openapi.js';
import type { OpenApiFeature } from './openapi-types.js';

/** `GET /openapi.json`, built once from every feature's paths. */
export function openApiRoutes(version: string, features: readonly OpenApiFeature[]): Router {
  const doc = buildOpenApi(version, features);
  const router = Router();
  router
    .route('/openapi.json')
    .get((_req, res) => {
      res.json(doc);
    })
    .all(methodNotAllowed(['GET']));
  return router;
}
