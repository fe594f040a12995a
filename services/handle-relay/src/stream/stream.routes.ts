import { methodNotAllowed } from '@svc/envelope';
import { Router } from 'express';
import { openStream, type StreamServiceDeps } from './stream.service.js';

/** `GET /v1/inbox/{handle}/stream?auth=<ts>:<sig>`: the live Server-Sent Events inbox. */
export function streamRoutes(deps: StreamServiceDeps): Router {
  const router = Router();
  router
    .route('/v1/inbox/:handle/stream')
    .get(async (req, res) => {
      await openStream(
        deps,
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
