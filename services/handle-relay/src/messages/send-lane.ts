import type { IncomingMessage, ServerResponse } from 'node:http';
import { handleRelayError, jsonLane, type Metrics } from '@svc/envelope';
import type { Logger } from 'pino';
import { readStrictJsonBody } from '../http/body.js';
import type { RateLimiter } from '../rate-limit/rate-limit.middleware.js';
import { SEND_BODY_LIMIT_BYTES } from './message.schemas.js';
import { sendMessage, type MessageServiceDeps } from './message.service.js';

const SEND_PATH = '/v1/messages';
/** `charset=utf-8`, quoted or not, as the only parameter that names a charset. */
const UTF8_CHARSET = /;\s*charset\s*=\s*"?utf-8"?\s*(;|$)/i;

/** What the lane shares with the app: the same rules, limiter, log lines and metrics. */
export interface SendLaneDeps {
  messages: MessageServiceDeps;
  limit: RateLimiter;
  logger: Logger;
  metrics: Metrics;
}

/**
 * Only the plain form of a send: exactly `POST /v1/messages`, a body neither compressed nor
 * in a charset other than UTF-8. Everything else (a query string, another spelling of the
 * path, gzip, UTF-16) goes through Express, whose route gives the same answers.
 */
function isPlainSend(req: IncomingMessage): boolean {
  if (req.method !== 'POST' || req.url !== SEND_PATH) return false;
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  const type = req.headers['content-type'];
  return type === undefined || !/charset/i.test(type) || UTF8_CHARSET.test(type);
}

/**
 * `POST /v1/messages` answered ahead of Express: the relay's hottest route, where Express's
 * own per-request work (prototype swaps, the router's layer walk, body-parser's setup) cost
 * more CPU than the whole send on the benchmark machine, and held sends/s to about half of
 * what this lane reaches (README, "Send"). Same rate limit, body rules, service call,
 * error envelope, request log line and metrics as the Express route. Answers whether it
 * took the request; when not, the caller hands it to Express.
 */
export function sendLane(
  deps: SendLaneDeps,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  return jsonLane({
    takes: isPlainSend,
    route: SEND_PATH,
    answer: async (req) => {
      deps.limit(req.socket.remoteAddress);
      const body = await readStrictJsonBody(req, SEND_BODY_LIMIT_BYTES);
      return [201, await sendMessage(deps.messages, body)];
    },
    render: handleRelayError,
    logger: deps.logger,
    metrics: deps.metrics,
  });
}
