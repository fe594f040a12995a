import { methodNotAllowed } from '@svc/envelope';
import { Router } from 'express';
import type { StreamService } from './stream.service.js';

/** `GET /v1/inbox/{handle}/stream?auth=<ts>:<sig>`: the live Server-Sent Events inbox. */
export function streamRoutes(service: StreamService): Router {
  const router = Router();
  router
    .route('/v1/inbox/:handle/stream')
    .get(async (req, res) => {
      await service.open(
        {
          handle: req.params.handle,
          auth: req.query.auth,
          lastEventId: req.get('Last-Event-ID'),
          since: req.query.since,
        },
        res,
      );
    })
    .all(methodNotAllowed(['GET']));
  return router;
}
