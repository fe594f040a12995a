import { methodNotAllowed, type NodeHandler } from '@svc/envelope';
import { Router } from 'express';
import type { InboxHandler } from './message.handlers.js';

/** The two hot handlers, shared with the lanes ahead of Express. */
export interface MessageHandlers {
  send: NodeHandler;
  inbox: InboxHandler;
}

/**
 * `POST /v1/messages` and `GET /v1/inbox/{handle}` for every spelling the lanes leave to
 * Express (a query on a send, a trailing slash, percent-encoding, HEAD).
 */
export function messageRoutes(handlers: MessageHandlers): Router {
  const router = Router();
  router
    .route('/v1/messages')
    .post((req, res) => handlers.send(req, res))
    .all(methodNotAllowed(['POST']));
  router
    .route('/v1/inbox/:handle')
    .get((req, res) => handlers.inbox(req, res, req.params.handle))
    .all(methodNotAllowed(['GET']));
  return router;
}
