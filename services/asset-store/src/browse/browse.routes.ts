import { methodNotAllowed, success } from '@svc/envelope';
import { Router } from 'express';
import { parseInput } from '../validation.js';
import { duplicatesQuery, foldersQuery } from './browse.schemas.js';
import type { BrowseService } from './browse.service.js';

/** `GET /folders` and `GET /duplicates`, mounted under `/api/v1/can/0`. */
export function browseRoutes(deps: { browse: BrowseService }): Router {
  const router = Router();
  router
    .route('/folders')
    .get(async (req, res) => {
      res.json(success(await deps.browse.folders(parseInput(foldersQuery, req.query, 'query'))));
    })
    .all(methodNotAllowed(['GET', 'HEAD']));
  router
    .route('/duplicates')
    .get(async (req, res) => {
      res.json(
        success(await deps.browse.duplicates(parseInput(duplicatesQuery, req.query, 'query'))),
      );
    })
    .all(methodNotAllowed(['GET', 'HEAD']));
  return router;
}
