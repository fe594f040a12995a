import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';

/** Derives the address a request is attributed to. */
export type ClientAddress = (req: IncomingMessage) => string | undefined;

/** Which proxies to believe, as the services' `trust_proxy` setting has it. */
export type TrustProxyValue = boolean | number | readonly string[];

/** The same reading as Express's `trust proxy`, so `req.ip` agrees with the function below. */
function trustFunction(trust: TrustProxyValue): (addr: string, hop: number) => boolean {
  if (trust === true) return () => true;
  if (typeof trust === 'number') return (_addr, hop) => hop < trust;
  return proxyaddr.compile([...(trust as readonly string[])]);
}

/**
 * The one place a client address is derived, used by routes, lanes, rate limits and log
 * lines alike. Without trust (the default) the peer's socket address; with it, the
 * `X-Forwarded-For` entry just beyond the last trusted proxy (proxy-addr, as Express).
 */
export function clientAddressFunction(trust: TrustProxyValue = false): ClientAddress {
  if (trust === false || (Array.isArray(trust) && trust.length === 0)) {
    return (req) => req.socket.remoteAddress;
  }
  const trusted = trustFunction(trust);
  return (req) => (req.socket.remoteAddress === undefined ? undefined : proxyaddr(req, trusted));
}

/** What to hand Express's `trust proxy`, so its `req.ip` reads the same. */
export function expressTrustProxy(trust: TrustProxyValue): boolean | number | string[] {
  return typeof trust === 'boolean' || typeof trust === 'number' ? trust : [...trust];
}
