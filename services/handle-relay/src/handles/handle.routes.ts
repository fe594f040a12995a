import { methodNotAllowed } from '@svc/envelope';
import { Router } from 'express';
import { readBytes } from '../http/body.js';
import type { HandleService } from './handle.service.js';

/** Largest registration body accepted. */
const REGISTRATION_BODY_LIMIT = 64 * 1024;

/**
 * Largest proofs body accepted: 64 proofs of 512 characters, each character possibly sent
 * as a 6-byte `\uXXXX` escape, come to about 193 KiB, so a valid list is never a 413.
 */
const PROOFS_BODY_LIMIT = 256 * 1024;

/** Registration, forward and reverse lookup, and proofs. */
export function handleRoutes(service: HandleService): Router {
  const router = Router();
  router
    .route('/v1/register')
    .post(async (req, res) => {
      const body = await readBytes(req, REGISTRATION_BODY_LIMIT);
      res.status(201).json(await service.register(body));
    })
    .all(methodNotAllowed(['POST']));
  router
    .route('/v1/u/:handle')
    .get(async (req, res) => {
      res.json(await service.lookup(req.params.handle));
    })
    .all(methodNotAllowed(['GET']));
  router
    .route('/v1/by-primary/:primary')
    .get(async (req, res) => {
      res.json(await service.byPrimary(req.params.primary));
    })
    .all(methodNotAllowed(['GET']));
  router
    .route('/v1/profile/:handle/proofs')
    .put(async (req, res) => {
      const body = await readBytes(req, PROOFS_BODY_LIMIT);
      await service.setProofs(req.params.handle, req.get('X-ID-Auth'), body);
      res.status(204).end();
    })
    .all(methodNotAllowed(['PUT']));
  return router;
}
