import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { ErrorRenderer } from './envelopes.js';
import { writeError, writeJson } from './middleware.js';
import type { Metrics } from './observability.js';
import { startRequestLine } from './request-logging.js';

/** One hot route answered ahead of Express. */
export interface LaneOptions {
  /** Whether the lane takes the request; everything else goes to Express. */
  takes: (req: IncomingMessage) => boolean;
  /** The route pattern its requests are counted under in the metrics. */
  route: string;
  /**
   * Status and JSON body of the answer (a `JsonText` is sent as it is); a throw is answered
   * as `errorHandler` would.
   */
  answer: (req: IncomingMessage, res: ServerResponse) => Promise<[status: number, body: unknown]>;
  render: ErrorRenderer;
  logger: Logger;
  metrics: Metrics;
}

/**
 * A route answered on the plain Node request, ahead of Express: where Express's own
 * per-request work (prototype swaps, the router's layer walk) costs a sizeable share of a
 * small request's CPU. It keeps what the app gives every request: the request's log line
 * and id, the duration metric under the route's pattern, and the error envelope. The
 * returned function answers whether it took the request; when not, the caller hands the
 * request to Express.
 */
export function jsonLane(
  options: LaneOptions,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { takes, route, answer, render, logger, metrics } = options;
  const respond = async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const [status, body] = await answer(req, res);
      writeJson(res, status, body);
    } catch (err) {
      writeError(res, err, render, logger);
    }
  };
  return (req, res) => {
    if (!takes(req)) return false;
    startRequestLine(logger, req, res);
    metrics.track(req, res, route);
    void respond(req, res);
    return true;
  };
}
