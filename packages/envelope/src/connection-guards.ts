import type http from 'node:http';
import type { Socket } from 'node:net';

/** Limits on what one client may hold of a server (see `guardConnections`). */
export interface ConnectionGuardOptions {
  /** Open connections one address may hold; past it new ones are closed at once. 0: no cap. */
  maxConnectionsPerAddress: number;
  /** A body must arrive at least this fast on average once the grace is over. 0: no floor. */
  minBodyBytesPerSecond: number;
  /** How long a body may arrive at any pace before the floor applies. */
  bodyRateGraceMs: number;
  /** Called with a request whose body is too slow, before its connection is closed. */
  onSlowBody: (req: http.IncomingMessage, socket: Socket) => void;
}

interface PendingBody {
  req: http.IncomingMessage;
  socket: Socket;
  startedAt: number;
  startBytes: number;
}

/** How often slow bodies are looked for. */
const CHECK_INTERVAL_MS = 1_000;

/**
 * Guards a server against clients that hold it: a cap on open connections per remote
 * address (slow-loris with many sockets), and a minimum average body rate after a grace
 * period (a body trickled a byte every few seconds is never idle long enough for the idle
 * timeout). A body the service itself is not reading (its buffer full: backpressure) is
 * not held against the client. Returns the stop of the periodic check.
 */
export function guardConnections(server: http.Server, options: ConnectionGuardOptions): () => void {
  const { maxConnectionsPerAddress: cap, minBodyBytesPerSecond: floor } = options;
  if (cap > 0) {
    const open = new Map<string, number>();
    // Ahead of Node's own listener: a refused socket never reaches the HTTP parser.
    server.prependListener('connection', (socket: Socket) => {
      const address = socket.remoteAddress ?? '';
      const count = (open.get(address) ?? 0) + 1;
      if (count > cap) {
        socket.destroy();
        return;
      }
      open.set(address, count);
      socket.once('close', () => {
        const left = (open.get(address) ?? 1) - 1;
        if (left > 0) open.set(address, left);
        else open.delete(address);
      });
    });
  }
  if (floor <= 0) return () => undefined;
  const pending = new Set<PendingBody>();
  server.on('request', (req: http.IncomingMessage) => {
    if (req.complete) return;
    const entry = {
      req,
      socket: req.socket,
      startedAt: Date.now(),
      startBytes: req.socket.bytesRead,
    };
    pending.add(entry);
    const done = () => pending.delete(entry);
    req.once('end', done);
    req.once('close', done);
  });
  const timer = setInterval(() => {
    const now = Date.now();
    for (const entry of pending) {
      const { req, socket, startedAt, startBytes } = entry;
      const elapsed = now - startedAt;
      if (req.complete || socket.destroyed) {
        pending.delete(entry);
        continue;
      }
      if (elapsed < options.bodyRateGraceMs) continue;
      if (req.readableLength >= req.readableHighWaterMark) continue;
      const rate = ((socket.bytesRead - startBytes) * 1000) / elapsed;
      if (rate < floor) {
        pending.delete(entry);
        options.onSlowBody(req, socket);
        socket.destroy();
      }
    }
  }, CHECK_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
