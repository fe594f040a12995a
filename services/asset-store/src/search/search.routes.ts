import { methodNotAllowed, success } from '@svc/envelope';
import { Router } from 'express';
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { listQuery, parseQuery, searchQuery } from './search.schemas.js';
import { listAssets, searchAssets } from './search.service.js';

/** `GET /list` and `GET /search`, mounted under `/api/v1/can/0`. */
export function searchRoutes(deps: { db: Kysely<Database> }): Router {
  const router = Router();
  router
    .route('/list')
    .get(async (req, res) => {
      res.json(success(await listAssets(deps.db, parseQuery(listQuery, req.query))));
    })
    .all(methodNotAllowed(['GET', 'HEAD']));
  router
    .route('/search')
    .get(async (req, res) => {
      res.json(success(await searchAssets(deps.db, parseQuery(searchQuery, req.query))));
    })
    .all(methodNotAllowed(['GET', 'HEAD']));
  return router;
}
