import { methodNotAllowed } from '@svc/envelope';
import { Router, type Request } from 'express';
import { relayErrors } from '../errors.js';
import type { LogService } from './log.service.js';

/** A query parameter given once as a non-negative integer of at most 15 digits. */
function count(req: Request, name: string): number {
  const value = req.query[name];
  if (typeof value !== 'string' || !/^\d{1,15}$/.test(value)) {
    throw relayErrors.invalidLogQuery(name, 'a non-negative integer given once');
  }
  return Number(value);
}

/** `leaf`: a leaf hash, 64 hex characters given once. */
function leafParam(req: Request): string {
  const value = req.query.leaf;
  if (typeof value !== 'string' || !/^[0-9a-fA-F]{64}$/.test(value)) {
    throw relayErrors.invalidLogQuery('leaf', 'a leaf hash of 64 hex characters given once');
  }
  return value.toLowerCase();
}

/** The transparency log: `/v1/log/head`, `/inclusion`, `/consistency`, `/entries`. */
export function logRoutes(service: LogService): Router {
  const router = Router();
  router
    .route('/v1/log/head')
    .get(async (_req, res) => {
      res.json(await service.head());
    })
    .all(methodNotAllowed(['GET']));
  router
    .route('/v1/log/inclusion')
    .get(async (req, res) => {
      const leaf = leafParam(req);
      res.json(await service.inclusion(leaf, count(req, 'size')));
    })
    .all(methodNotAllowed(['GET']));
  router
    .route('/v1/log/consistency')
    .get(async (req, res) => {
      res.json(await service.consistency(count(req, 'from'), count(req, 'to')));
    })
    .all(methodNotAllowed(['GET']));
  router
    .route('/v1/log/entries')
    .get(async (req, res) => {
      res.json(await service.entries(count(req, 'start'), count(req, 'end')));
    })
    .all(methodNotAllowed(['GET']));
  return router;
}
