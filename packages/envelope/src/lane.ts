import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { ClientAddress } from './client-address.js';
import type { ErrorRenderer } from './envelopes.js';
import type { ErrorTranslator } from './errors.js';
import { writeError, writeJson } from './middleware.js';
import type { Metrics } from './observability.js';
import { startRequestLine } from './request-logging.js';

/**
 * A route's whole work against Node's request and response: mounted as is in a lane and as
 * the Express route of the same path (Express 5 awaits it), so both answer alike.
 */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** What every lane shares: how its requests are counted, logged and failed. */
interface LaneBase {
  /** Whether the lane takes the request; everything else goes to Express. */
  takes: (req: IncomingMessage) => boolean;
  /** The route pattern its requests are counted under in the metrics. */
  route: string;
  render: ErrorRenderer;
  /** The service's reading of its database's errors, as its error middleware has it. */
  translate?: ErrorTranslator;
  logger: Logger;
  metrics: Metrics;
  /** The service's client address (`trust_proxy`), for the log line as `requestLogging` has it. */
  clientAddress?: ClientAddress;
}

/** One hot route answered ahead of Express by the route's own handler. */
export interface HandlerLaneOptions extends LaneBase {
  /** Writes the answer; a throw is answered as `errorHandler` would. */
  handle: NodeHandler;
}

/** One hot route answered ahead of Express with a JSON body. */
export interface LaneOptions extends LaneBase {
  /**
   * Status and JSON body of the answer (a `JsonText` is sent as it is); a throw is answered
   * as `errorHandler` would.
   */
  answer: (req: IncomingMessage, res: ServerResponse) => Promise<[status: number, body: unknown]>;
}

/**
 * A route answered on the plain Node request, ahead of Express: where Express's own
 * per-request work (prototype swaps, the router's layer walk) costs a sizeable share of a
 * small request's CPU. It keeps what the app gives every request: the request's log line
 * and id, the duration metric under the route's pattern, and the error envelope. The
 * returned function answers whether it took the request; when not, the caller hands the
 * request to Express.
 */
export function handlerLane(
  options: HandlerLaneOptions,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { takes, route, handle, render, translate, logger, metrics, clientAddress } = options;
  const respond = async (req: IncomingMessage, res: ServerResponse) => {
    try {
      await handle(req, res);
    } catch (err) {
      writeError(res, err, render, logger, translate);
    }
  };
  return (req, res) => {
    if (!takes(req)) return false;
    startRequestLine(logger, req, res, clientAddress);
    metrics.track(req, res, route);
    void respond(req, res);
    return true;
  };
}

/** `handlerLane` for a route whose answer is one JSON body. */
export function jsonLane(
  options: LaneOptions,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { answer, ...rest } = options;
  return handlerLane({
    ...rest,
    handle: async (req, res) => {
      const [status, body] = await answer(req, res);
      writeJson(res, status, body);
    },
  });
}
