import { methodNotAllowed } from '@svc/envelope';
import { Router } from 'express';
import { buildOpenApiDocument, type OpenApiFeature } from './openapi.js';

/** What `/openapi.json` is built from: each feature's part, passed in by the app. */
export interface OpenApiRoutesDeps {
  version: string;
  features: readonly OpenApiFeature[];
}

/** `GET /openapi.json`: the OpenAPI 3.1 description of every endpoint. */
export function openApiRoutes(deps: OpenApiRoutesDeps): Router {
  const document = buildOpenApiDocument(deps.version, deps.features);
  const router = Router();
  router
    .route('/openapi.json')
    .get((_req, res) => {
      res.json(document);
    })
    .all(methodNotAllowed(['GET', 'HEAD']));
  return router;
}
