import { methodNotAllowed, success } from '@svc/envelope';
import { Router } from 'express';
import { parseInput } from '../validation.js';
import { changesQuery, cursor, streamQuery } from './change.schemas.js';
import type { ChangeFeed } from './change.service.js';
import { streamChanges } from './change-stream.js';
import { assetErrors } from '../errors.js';

/** `GET /changes` and `GET /changes/stream`, mounted under `/api/v1/can/0`. */
export function changeRoutes(deps: { changes: ChangeFeed; pingMs?: number }): Router {
  const router = Router();
  router
    .route('/changes')
    .get(async (req, res) => {
      const { after, limit } = parseInput(changesQuery, req.query, 'query');
      res.json(success(await deps.changes.page(after, limit)));
    })
    .all(methodNotAllowed(['GET', 'HEAD']));
  router
    .route('/changes/stream')
    .get(async (req, res) => {
      const query = parseInput(streamQuery, req.query, 'query');
      const lastEventId = req.get('last-event-id');
      let after = query.after;
      if (lastEventId !== undefined && lastEventId !== '') {
        const parsed = cursor.safeParse(lastEventId);
        if (!parsed.success) throw assetErrors.badParameter('Last-Event-ID', 'a cursor');
        after = parsed.data;
      }
      await streamChanges(req, res, deps.changes, after, deps.pingMs);
    })
    .all(methodNotAllowed(['GET']));
  return router;
}
