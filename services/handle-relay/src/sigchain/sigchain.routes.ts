import { methodNotAllowed } from '@svc/envelope';
import { Router } from 'express';
import { readBytes } from '../http/body.js';
import type { SigchainService } from './sigchain.service.js';

/** A rotate link is well under 1 KiB. */
const ROTATE_BODY_LIMIT = 16 * 1024;

/** `GET /v1/sigchains/{scheme}/{value}` and `POST /v1/rotate`. */
export function sigchainRoutes(service: SigchainService): Router {
  const router = Router();
  router
    .route('/v1/sigchains/:scheme/:value')
    .get(async (req, res) => {
      const text = await service.chain(req.params.scheme, req.params.value);
      res.status(200).setHeader('Content-Type', 'application/jsonl');
      res.end(text);
    })
    .all(methodNotAllowed(['GET']));
  router
    .route('/v1/rotate')
    .post(async (req, res) => {
      const body = await readBytes(req, ROTATE_BODY_LIMIT);
      res.json(await service.rotate(body));
    })
    .all(methodNotAllowed(['POST']));
  return router;
}
