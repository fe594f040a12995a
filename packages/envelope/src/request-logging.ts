import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import querystring from 'node:querystring';
import type { RequestHandler } from 'express';
import type { Level, Logger } from 'pino';
import type { ClientAddress } from './client-address.js';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Query parameters that carry credentials: the relay's stream takes its signed `auth` in
 * the query (EventSource cannot send headers), and a signature stays usable for a minute,
 * so log lines show these values as `[redacted]`.
 */
const CREDENTIAL_PARAMS = new Set(['auth', 'token', 'access_token']);

/**
 * The URL as logged: credentials in the query redacted. Names are compared as the query
 * parser reads them (`+` a space, percent-escapes decoded, here in any case), so `%61uth`,
 * which the relay takes for `auth`, is redacted too.
 */
function loggedUrl(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return url;
  const params = url
    .slice(start + 1)
    .split('&')
    .map((param) => {
      const eq = param.indexOf('=');
      if (eq === -1) return param;
      const name = querystring.unescape(param.slice(0, eq).replaceAll('+', ' ')).toLowerCase();
      return CREDENTIAL_PARAMS.has(name) ? `${param.slice(0, eq)}=[redacted]` : param;
    });
  return `${url.slice(0, start + 1)}${params.join('&')}`;
}

/** The request's pending log line, kept on its response until the response closes. */
interface PendingLine {
  id: string;
  method: string;
  url: string;
  /** The client address, when the service gave its `clientAddress` (`trust_proxy`). */
  remoteAddress?: string;
  startedAt: number;
  err?: Error;
}

const PENDING = Symbol('pendingRequestLine');
type WithPendingLine = ServerResponse & { [PENDING]?: PendingLine };

/**
 * Puts an unexpected error on the request's own log line, so it is logged once with the
 * request it broke. False when the request is not logged (no `requestLogging` in front).
 */
export function attachErrorToRequestLine(res: ServerResponse, err: Error): boolean {
  const line = (res as WithPendingLine)[PENDING];
  if (!line) return false;
  line.err = err;
  return true;
}

/**
 * 501 is a documented answer (a feature this version does not have), not a fault: it is
 * logged as a client error is, without an error or stack.
 */
const NOT_IMPLEMENTED = 501;

/** Whether the line reports a server fault (and carries an error). */
const isFault = (statusCode: number, err: Error | undefined): boolean =>
  !!err || (statusCode >= 500 && statusCode !== NOT_IMPLEMENTED);

function levelFor(statusCode: number, err: Error | undefined): Level {
  if (isFault(statusCode, err)) return 'error';
  return statusCode >= 400 ? 'warn' : 'info';
}

function writeLine(
  logger: Logger,
  req: IncomingMessage,
  res: ServerResponse,
  line: PendingLine,
): void {
  const level = levelFor(res.statusCode, line.err);
  if (!logger.isLevelEnabled(level)) return;
  const fields = {
    req: {
      id: line.id,
      method: line.method,
      url: loggedUrl(line.url),
      ...(line.remoteAddress === undefined ? {} : { remoteAddress: line.remoteAddress }),
    },
    res: { statusCode: res.statusCode },
    responseTime: Date.now() - line.startedAt,
  };
  if (isFault(res.statusCode, line.err)) {
    const err = line.err ?? new Error(`failed with status code ${res.statusCode}`);
    logger[level]({ ...fields, err }, 'request errored');
    return;
  }
  const ended = !req.readableAborted && res.writableEnded;
  logger[level](fields, ended ? 'request completed' : 'request aborted');
}

/**
 * Starts the request's one log line, for a handler that runs ahead of Express: the same
 * request id, `X-Request-Id` echo and line as `requestLogging`. With `clientAddress`, the
 * line names the client as routes and rate limits see it.
 */
export function startRequestLine(
  logger: Logger,
  req: IncomingMessage,
  res: ServerResponse,
  clientAddress?: ClientAddress,
): void {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
  res.setHeader('X-Request-Id', id);
  const line: PendingLine = {
    id,
    method: req.method ?? '',
    url: req.url ?? '',
    startedAt: Date.now(),
  };
  if (clientAddress) line.remoteAddress = clientAddress(req);
  (res as WithPendingLine)[PENDING] = line;
  // 'close' follows 'finish' on every response and also ends an aborted one: one listener.
  res.once('close', () => writeLine(logger, req, res, line));
}

/**
 * One log line per request carrying a request id: the client's `X-Request-Id` when it is a
 * sane token, else a fresh UUID; echoed back on the response. Levels: error for 5xx and
 * unexpected errors (with the error), warn for 4xx and 501, info otherwise. Written by hand rather
 * than with pino-http: no child logger, serializer pass or extra listeners per request,
 * and nothing at all is built when the level is off.
 */
export function requestLogging(logger: Logger, clientAddress?: ClientAddress): RequestHandler {
  return (req, res, next) => {
    startRequestLine(logger, req, res, clientAddress);
    next();
  };
}
