import { methodNotAllowed, success } from '@svc/envelope';
import { Router } from 'express';
import { parseInput } from '../validation.js';
import { listQuery, searchQuery } from './search.schemas.js';
import type { SearchService } from './search.service.js';

/** `GET /list` and `GET /search`, mounted under `/api/v1/can/0`. */
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
  return router;
}
