import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import type { ErrorRenderer } from './envelopes.js';
import { bodyError } from './body.js';
import { AppError, errors, isOutOfSpace, type ErrorTranslator } from './errors.js';
import { attachErrorToRequestLine } from './request-logging.js';

interface HttpError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
}

/** Codes for client errors raised by Express's own helpers (static files, ranges). */
const CODE_BY_STATUS: Readonly<Record<number, string>> = {
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  412: 'precondition_failed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  416: 'range_not_satisfiable',
  429: 'rate_limited',
};

/** Maps what Express, its parsers and the body readers throw onto the shared catalogue. */
function toAppError(err: unknown): AppError | undefined {
  const known = bodyError(err);
  if (known) return known;
  const e = err as HttpError | null;
  if (e && typeof e === 'object') {
    // The router's own decode of a path parameter: a client's bad percent-encoding.
    if (err instanceof URIError && e.status === 400) return errors.malformedPathEncoding();
    const status = e.status ?? e.statusCode;
    if (e.expose && typeof status === 'number' && status >= 400 && status < 500) {
      return new AppError(status, CODE_BY_STATUS[status] ?? 'bad_request', (err as Error).message);
    }
  }
  return undefined;
}

/** Sends an AppError in the service's envelope with its extra headers. */
export function sendError(res: Response, err: AppError, render: ErrorRenderer): void {
  for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
  res.status(err.status).json(render(err));
}

/**
 * What an error is answered with. An unexpected one is logged once and becomes a bare 500;
 * a translated 503 (the database is unavailable) is answered as it is;
 * a full disk is logged the same way, for the operator, and answered 507 so the client
 * knows to try again later.
 */
function answerFor(
  err: unknown,
  res: ServerResponse,
  logger: Logger,
  translate: ErrorTranslator | undefined,
): AppError {
  const known = toAppError(err);
  if (known) return known;
  const translated = translate?.(err);
  // A database outage is the operator's to see on the request line (503), not a defect
  // to log with a stack thousands of times a second.
  if (translated && (translated.status < 500 || translated.status === 503)) return translated;
  // With request logging on, the error rides on the request's own log line (one line per
  // request, carrying the real stack); without it, it is logged here.
  const error = err instanceof Error ? err : new Error(String(err));
  if (!attachErrorToRequestLine(res, error)) logger.error({ err }, 'unhandled error');
  return translated ?? (isOutOfSpace(err) ? errors.insufficientStorage() : errors.internal());
}

/**
 * The single error middleware: known errors in the service's envelope (with `translate`,
 * the service's reading of its database's errors); anything else is logged once with its
 * stack and answered as a bare 500 (no stack, no SQL).
 */
export function errorHandler(
  render: ErrorRenderer,
  logger: Logger,
  translate?: ErrorTranslator,
): ErrorRequestHandler {
  return (err: unknown, _req: Request, res: Response, _next) => {
    const appError = answerFor(err, res, logger, translate);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendError(res, appError, render);
  };
}

/**
 * A body that is already JSON text, written as is: for answers assembled from stored JSON
 * (envelopes spliced in verbatim) that parsing and serialising again would only slow down.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/**
 * A JSON body written as Express's `res.status(status).json(body)` writes it; `JsonText` as
 * `res.type('application/json').send(text)` would.
 */
export function writeJson(res: ServerResponse, status: number, body: unknown): void {
  const text = body instanceof JsonText ? body.text : JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** `errorHandler`'s answer on a plain Node response, for a handler that runs ahead of Express. */
export function writeError(
  res: ServerResponse,
  err: unknown,
  render: ErrorRenderer,
  logger: Logger,
  translate?: ErrorTranslator,
): void {
  const appError = answerFor(err, res, logger, translate);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  for (const [name, value] of Object.entries(appError.headers)) res.setHeader(name, value);
  writeJson(res, appError.status, render(appError));
}

/** Last in the chain: anything unmatched is a 404 in the envelope. */
export const notFound: RequestHandler = () => {
  throw errors.noSuchRoute();
};

/** Attach with `router.route(path)....all(methodNotAllowed([...]))`. */
export function methodNotAllowed(allowed: readonly string[]): RequestHandler {
  return () => {
    throw errors.methodNotAllowed(allowed);
  };
}
