import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { handleRelayError, JsonText, jsonLane, type Metrics } from '@svc/envelope';
import type { Logger } from 'pino';
import { inboxJson } from './message.routes.js';
import { readInbox, type MessageServiceDeps } from './message.service.js';

/**
 * The plain spelling only: the lowercase prefix and a handle of handle characters, which
 * need no percent-decoding. The query is parsed as Express's default ("simple") parser does.
 */
const PLAIN_INBOX = /^\/v1\/inbox\/([A-Za-z0-9_-]+)(?:\?(.*))?$/;

/** What the lane shares with the app: the same rules, log lines and metrics. */
export interface InboxLaneDeps {
  messages: Pick<MessageServiceDeps, 'db' | 'now'>;
  logger: Logger;
  metrics: Metrics;
}

/**
 * `GET /v1/inbox/{handle}` answered ahead of Express: clients poll it, and Express's own
 * per-request work cost a sizeable share of a poll's CPU on the benchmark machine (README,
 * "Inbox"). Same service call, error envelope, request log line and metrics as the Express
 * route, which still answers every other spelling (a trailing slash, percent-encoding,
 * another case of the prefix, HEAD). Answers whether it took the request.
 */
export function inboxLane(
  deps: InboxLaneDeps,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  return jsonLane({
    takes: (req) => req.method === 'GET' && PLAIN_INBOX.test(req.url ?? ''),
    route: '/v1/inbox/:handle',
    answer: async (req) => {
      const [, handle = '', query = ''] = PLAIN_INBOX.exec(req.url ?? '') ?? [];
      // Node joins a repeated custom header with ", ", as Express's req.get then reads it.
      const auth = req.headers['x-id-auth'];
      const page = await readInbox(deps.messages, {
        handle,
        query: parseQuery(query),
        auth: Array.isArray(auth) ? auth.join(', ') : auth,
      });
      return [200, new JsonText(inboxJson(page))];
    },
    render: handleRelayError,
    logger: deps.logger,
    metrics: deps.metrics,
  });
}
