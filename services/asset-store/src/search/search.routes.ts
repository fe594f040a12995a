import { methodNotAllowed, success } from '@svc/envelope';
import { Router } from 'express';
import { jsonBody } from '../assets/json-body.js';
import { parseInput } from '../validation.js';
import { contentLookupBody, listQuery, searchQuery } from './search.schemas.js';
import type { SearchService } from './search.service.js';

/** Room for 1,000 digests as JSON (about 67 KB) with whitespace to spare. */
const LOOKUP_BODY_BYTES = 256 * 1024;

/** `GET /list`, `GET /search` and `POST /search/sha256`, mounted under `/api/v1/can/0`. */
export function searchRoutes(deps: { search: SearchService }): Router {
  const router = Router();
  router
    .route('/list')
    .get(async (req, res) => {
      res.json(success(await deps.search.list(parseInput(listQuery, req.query, 'query'))));
    })
    .all(methodNotAllowed(['GET', 'HEAD']));
  router
    .route('/search')
    .get(async (req, res) => {
      res.json(success(await deps.search.search(parseInput(searchQuery, req.query, 'query'))));
    })
    .all(methodNotAllowed(['GET', 'HEAD']));
  router
    .route('/search/sha256')
    .post(jsonBody(LOOKUP_BODY_BYTES), async (req, res) => {
      res.json(
        success(await deps.search.lookupContent(parseInput(contentLookupBody, req.body, 'body'))),
      );
    })
    .all(methodNotAllowed(['POST']));
  return router;
}
