import { methodNotAllowed } from '@svc/envelope';
import { Router } from 'express';
import { openApiFeatures } from './features.js';
import { buildOpenApiDocument } from './openapi.js';

/** `GET /openapi.json`: the OpenAPI 3.1 description of every endpoint. */
export function openApiRoutes(deps: { version: string }): Router {
  const document = buildOpenApiDocument(deps.version, openApiFeatures);
  const router = Router();
  router
    .route('/openapi.json')
    .get((_req, res) => {
      res.json(document);
    })
    .all(methodNotAllowed(['GET', 'HEAD']));
  return router;
}
