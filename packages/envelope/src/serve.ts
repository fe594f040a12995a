import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { RequestListener } from 'node:http';
import type { Logger } from 'pino';
import type { ErrorRenderer } from './envelopes.js';
import { guardConnections } from './connection-guards.js';
import type { AppError } from './errors.js';
import { errors } from './errors.js';
import { InFlight } from './in-flight.js';
import { writeError } from './middleware.js';
import { releaseStartUpSignals } from './start-up.js';

/** What `serve` needs: the app, where to listen, and what to close after the last request. */
export interface ServeOptions {
  app: RequestListener;
  host: string;
  port: number;
  logger: Logger;
  /** The service's error body, also for requests Node's HTTP parser refuses. */
  render: ErrorRenderer;
  /** A request whose body has stopped arriving is cut off after this long of quiet. */
  idleTimeoutMs?: number;
  /** A request's headers must have arrived this long after its connection began. */
  headersTimeoutMs?: number;
  /** Open connections one client address may hold; past it new ones are closed. 0: no cap. */
  maxConnectionsPerAddress?: number;
  /** A body must average at least this many bytes a second after the grace. 0: no floor. */
  minBodyBytesPerSecond?: number;
  /** How long a body may arrive at any pace before the floor applies. */
  bodyRateGraceMs?: number;
  /** Bound on waiting for in-flight requests at shutdown. */
  drainMs?: number;
  /** Called once the server stopped accepting, before in-flight requests are awaited. */
  beforeDrain?: () => void | Promise<void>;
  /** Called after the server closed: stop workers, close the database. */
  onClose: () => Promise<void>;
}

/** A listening server and its graceful stop. */
export interface Served {
  server: http.Server;
  address: AddressInfo;
  shutdown: (reason: string) => Promise<void>;
}

/** The defaults of the settings of the same names (`max_connections_per_address`, ...). */
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 256;
export const DEFAULT_MIN_BODY_BYTES_PER_SECOND = 1024;

/**
 * Listens, and on SIGTERM/SIGINT stops accepting, lets in-flight requests finish (bounded),
 * closes resources and exits 0.
 */
export async function serve(options: ServeOptions): Promise<Served> {
  const {
    app,
    host,
    port,
    logger,
    render,
    idleTimeoutMs = 120_000,
    headersTimeoutMs = 60_000,
    drainMs = 10_000,
    maxConnectionsPerAddress = DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
    minBodyBytesPerSecond = DEFAULT_MIN_BODY_BYTES_PER_SECOND,
    bodyRateGraceMs = 10_000,
  } = options;
  // Node enforces the headers timeout only when it looks over its connections, every 30 s
  // by default: a minute's limit then let headers trickle in for up to 90 s.
  const server = http.createServer(
    headersTimeoutMs > 0 ? { connectionsCheckingInterval: Math.min(1_000, headersTimeoutMs) } : {},
  );
  // Slow-loris guards: the headers must arrive within a minute, and a request whose body
  // stops arriving is cut off once its connection has been quiet for idleTimeoutMs. No
  // bound on a whole request: a long upload that keeps sending is fine, and once a request
  // is in, the service may take as long as it needs to answer (a rebuild, say).
  // A client that sends its request and half-closes (HTTP/1.0 style, `nc -N`, some health
  // checks) still reads the answer: by default Node drops the request at the client's FIN,
  // so any answer that waits on the database was never sent. Node has no option for it.
  (server as http.Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  server.headersTimeout = headersTimeoutMs;
  server.requestTimeout = 0;
  server.timeout = idleTimeoutMs;
  const requests = new WeakMap<Socket, http.IncomingMessage>();
  server.on('timeout', (socket: Socket) => {
    if (!requests.get(socket)?.complete) socket.destroy();
  });
  const stopGuards = guardConnections(server, {
    maxConnectionsPerAddress,
    minBodyBytesPerSecond,
    bodyRateGraceMs,
    onSlowBody: (req, socket) =>
      logger.warn(
        { address: socket.remoteAddress, url: req.url },
        'closed a request whose body arrived too slowly',
      ),
  });
  server.once('close', stopGuards);
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) =>
    answerClientError(err, socket, render),
  );
  server.on('checkExpectation', (_req, res: http.ServerResponse) => {
    writeError(res, errors.expectationFailed(), render, logger);
  });
  // A keep-alive socket would hold server.close() open for keepAliveTimeout after its last
  // response, so while draining every response closes its connection once it is sent.
  const active = new InFlight<http.ServerResponse>();
  let draining = false;
  const closeAfter = (res: http.ServerResponse): void => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
    const socket = res.socket;
    if (res.writableFinished) socket?.end();
    else res.once('finish', () => socket?.end());
  };
  // Registered before the app, so a request arriving while draining is marked before a
  // synchronous handler has sent its headers.
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    requests.set(req.socket, req);
    if (draining) closeAfter(res);
    const entry = active.add(res);
    res.once('close', () => active.remove(entry));
  });
  server.on('request', app);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  logger.info({ host: address.address, port: address.port }, 'listening');

  let stopping: Promise<void> | undefined;
  const shutdown = (reason: string): Promise<void> => {
    stopping ??= (async () => {
      draining = true;
      for (const res of active.values()) closeAfter(res);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Logged once the listener is closed: whoever reads it knows new connections fail.
      logger.info({ reason }, 'shutting down');
      await options.beforeDrain?.();
      const timer = setTimeout(() => server.closeAllConnections(), drainMs);
      timer.unref();
      await closed;
      clearTimeout(timer);
      await options.onClose();
      logger.info('stopped');
    })();
    return stopping;
  };

  releaseStartUpSignals();
  // `on`, not `once`: under `pnpm start` each pnpm passes a Ctrl-C on to its children, so the
  // service gets it two or three times; a repeat must not kill the shutdown under way.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      shutdown(signal).then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
  return { server, address, shutdown };
}

/** What a request Node's HTTP parser refused gets, by the parser's error code. */
function clientErrorFor(code: string | undefined): AppError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return errors.headersTooLarge();
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return errors.chunkExtensionsTooLarge();
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return errors.requestTimeout();
    default:
      return errors.malformedRequest();
  }
}

/**
 * Node's own answer to a request its parser refuses has no body; this one carries the
 * service's error envelope. As Node does, it answers only while no response on the
 * connection has begun (a half-sent one would be corrupted), then closes the connection.
 */
function answerClientError(
  err: NodeJS.ErrnoException,
  socket: Socket,
  render: ErrorRenderer,
): void {
  const inFlight = (socket as Socket & { _httpMessage?: http.ServerResponse })._httpMessage;
  if (err.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) {
    const refused = clientErrorFor(err.code);
    const body = JSON.stringify(render(refused));
    socket.write(
      `HTTP/1.1 ${refused.status} ${http.STATUS_CODES[refused.status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
