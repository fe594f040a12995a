import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';
import type { Logger } from 'pino';

/** What `serve` needs: the app, where to listen, and what to close after the last request. */
export interface ServeOptions {
  app: RequestListener;
  host: string;
  port: number;
  logger: Logger;
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

/**
 * Listens, and on SIGTERM/SIGINT stops accepting, lets in-flight requests finish (bounded),
 * closes resources and exits 0.
 */
export async function serve(options: ServeOptions): Promise<Served> {
  const { app, host, port, logger, drainMs = 10_000 } = options;
  const server = http.createServer();
  // Slow-loris guard; long uploads are still fine because the timeout is per header phase.
  server.headersTimeout = 60_000;
  server.requestTimeout = 0;
  // A keep-alive socket would hold server.close() open for keepAliveTimeout after its last
  // response, so while draining every response closes its connection once it is sent.
  const active = new Set<http.ServerResponse>();
  let draining = false;
  const closeAfter = (res: http.ServerResponse): void => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
    const socket = res.socket;
    if (res.writableFinished) socket?.end();
    else res.once('finish', () => socket?.end());
  };
  // Registered before the app, so a request arriving while draining is marked before a
  // synchronous handler has sent its headers.
  server.on('request', (_req, res: http.ServerResponse) => {
    if (draining) closeAfter(res);
    active.add(res);
    res.once('close', () => active.delete(res));
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
      for (const res of active) closeAfter(res);
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

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
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
