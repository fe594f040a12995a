import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  handleRelayError,
  handlerLane,
  type ClientAddress,
  type ErrorTranslator,
  type Metrics,
} from '@svc/envelope';
import type { Logger } from 'pino';
import type { MessageHandlers } from './message.routes.js';

/** A lane: answers whether it took the request; when not, the caller hands it to Express. */
export type Lane = (req: IncomingMessage, res: ServerResponse) => boolean;

/** What the lanes share with the app: its handlers, error reading, log lines and metrics. */
export interface MessageLaneDeps {
  handlers: MessageHandlers;
  translate: ErrorTranslator;
  logger: Logger;
  metrics: Metrics;
  /** For the log line; without it the line names no address. */
  clientAddress?: ClientAddress;
}

const SEND_PATH = '/v1/messages';

/**
 * The plain inbox spelling only: the lowercase prefix and a handle of handle characters,
 * which need no percent-decoding.
 */
const PLAIN_INBOX = /^\/v1\/inbox\/([A-Za-z0-9_-]+)(?:\?.*)?$/;

/**
 * `POST /v1/messages` spelled exactly so, answered ahead of Express: the relay's hottest
 * route, where Express's own per-request work (prototype swaps, the layer walk) cost more
 * CPU than the send itself (bench/NOTES.md). Same handler as the Express route.
 */
export function sendLane(deps: MessageLaneDeps): Lane {
  return handlerLane({
    takes: (req) => req.method === 'POST' && req.url === SEND_PATH,
    route: SEND_PATH,
    handle: deps.handlers.send,
    render: handleRelayError,
    translate: deps.translate,
    logger: deps.logger,
    metrics: deps.metrics,
    clientAddress: deps.clientAddress,
  });
}

/**
 * `GET /v1/inbox/{handle}` in its plain spelling, answered ahead of Express: clients poll
 * it (bench/NOTES.md). Same handler as the Express route, which answers every other
 * spelling (a trailing slash, percent-encoding, another case of the prefix, HEAD).
 */
export function inboxLane(deps: MessageLaneDeps): Lane {
  return handlerLane({
    takes: (req) => req.method === 'GET' && PLAIN_INBOX.test(req.url ?? ''),
    route: '/v1/inbox/:handle',
    handle: (req, res) => {
      const [, handle = ''] = PLAIN_INBOX.exec(req.url ?? '') ?? [];
      return deps.handlers.inbox(req, res, handle);
    },
    render: handleRelayError,
    translate: deps.translate,
    logger: deps.logger,
    metrics: deps.metrics,
    clientAddress: deps.clientAddress,
  });
}
