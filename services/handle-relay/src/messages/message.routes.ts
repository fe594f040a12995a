import { methodNotAllowed } from '@svc/envelope';
import { Router, type RequestHandler } from 'express';
import { jsonBodyOf, jsonKeepingText } from '../http/body.js';
import { SEND_BODY_LIMIT_BYTES } from './message.schemas.js';
import {
  readInbox,
  sendMessage,
  type InboxPage,
  type MessageServiceDeps,
} from './message.service.js';

/** The inbox page as JSON text; envelopes are spliced in as stored, never re-parsed. */
export function inboxJson(page: InboxPage): string {
  return `{"messages":[${page.messagesJson}],"next_since":${page.next_since},"has_more":${page.has_more}}`;
}

/**
 * `POST /v1/messages` (rate-limited, with a body limit above the 256 KiB envelope limit so
 * the service can answer 413 `payload_too_large` itself) and `GET /v1/inbox/{handle}`.
 */
export function messageRoutes(deps: MessageServiceDeps & { rateLimit: RequestHandler }): Router {
  const router = Router();
  router
    .route('/v1/messages')
    // Any content type is read as JSON, as on the other POST routes: `curl -d` sends
    // form-encoded headers over what is still a JSON body.
    .post(
      deps.rateLimit,
      jsonKeepingText({ limit: SEND_BODY_LIMIT_BYTES, type: () => true }),
      async (req, res) => {
        res.status(201).json(await sendMessage(deps, jsonBodyOf(req)));
      },
    )
    .all(methodNotAllowed(['POST']));
  router
    .route('/v1/inbox/:handle')
    .get(async (req, res) => {
      const page = await readInbox(deps, {
        handle: req.params.handle,
        query: req.query,
        auth: req.get('X-ID-Auth'),
      });
      res.type('application/json').send(inboxJson(page));
    })
    .all(methodNotAllowed(['GET']));
  return router;
}
