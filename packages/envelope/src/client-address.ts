import type { IncomingMessage } from 'node:http';

/**
 * The address a request is attributed to: in rate limits, routes, lanes and logs alike.
 * Today the peer's socket address; a `trust_proxy` setting would read forwarded headers
 * here, and nowhere else.
 */
export function clientAddress(req: IncomingMessage): string | undefined {
  return req.socket.remoteAddress;
}
