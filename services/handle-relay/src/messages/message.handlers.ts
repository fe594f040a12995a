import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { JsonText, writeJson, type NodeHandler } from '@svc/envelope';
import { readStrictJsonBody } from '../http/body.js';
import type { RateLimiter } from '../rate-limit/rate-limit.middleware.js';
import { SEND_BODY_LIMIT_BYTES } from './message.schemas.js';
import type { InboxPage, MessageService } from './message.service.js';

/** `GET /v1/inbox/{handle}`'s work, given the handle as the path spelled it (decoded). */
export type InboxHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  handle: string,
) => Promise<void>;

/** The inbox page as JSON text; envelopes are spliced in as stored, never re-parsed. */
export function inboxJson(page: InboxPage): string {
  return `{"messages":[${page.messagesJson}],"next_since":${page.next_since},"has_more":${page.has_more}}`;
}

/**
 * `POST /v1/messages`, the one handler its lane and its Express route both mount: the rate
 * limit first (a refused flood costs no parsing), then the body (any content type is read
 * as JSON: `curl -d` labels a JSON body form-encoded; the limit sits above the 256 KiB
 * envelope limit so the service answers 413 `payload_too_large` itself), then the send.
 */
export function sendHandler(messages: MessageService, limit: RateLimiter): NodeHandler {
  return async (req, res) => {
    await limit(req);
    const body = await readStrictJsonBody(req, SEND_BODY_LIMIT_BYTES);
    writeJson(res, 201, await messages.send(body));
  };
}

/** The query of a request URL, parsed as Express's default ("simple") parser does. */
function queryOf(url: string): unknown {
  const at = url.indexOf('?');
  return parseQuery(at < 0 ? '' : url.slice(at + 1));
}

/** `GET /v1/inbox/{handle}`, the one handler its lane and its Express route both mount. */
export function inboxHandler(messages: MessageService): InboxHandler {
  return async (req, res, handle) => {
    // Node joins a repeated custom header with ", ", as Express's req.get reads it.
    const auth = req.headers['x-id-auth'];
    const page = await messages.readInbox({
      handle,
      query: queryOf(req.url ?? ''),
      auth: Array.isArray(auth) ? auth.join(', ') : auth,
    });
    writeJson(res, 200, new JsonText(inboxJson(page)));
  };
}
