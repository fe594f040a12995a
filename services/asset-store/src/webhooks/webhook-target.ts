import dns from 'node:dns';
import type { LookupAddress, LookupAllOptions, LookupOneOptions } from 'node:dns';
import net from 'node:net';

/** Addresses a webhook may not reach unless `webhook_allow_private`: not the public internet. */
const blocked = new net.BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(address, prefix, 'ipv4');
}
for (const [address, prefix] of [
  ['::', 128],
  ['::1', 128],
  // IPv4-mapped and IPv4-compatible forms could carry any of the above.
  ['::ffff:0:0', 96],
  ['::', 96],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(address, prefix, 'ipv6');
}

/** Whether `ip` is a private, loopback, link-local (or otherwise non-public) address. */
export function isPrivateAddress(ip: string): boolean {
  const family = net.isIP(ip);
  if (family === 0) return true;
  return blocked.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

/** The host of a URL as a resolver takes it (IPv6 literals without brackets). */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Why `url` may not be a webhook's target now, or undefined: not http(s), or a host that
 * does not resolve, or resolves to a private, loopback or link-local address.
 */
export async function targetProblem(url: URL, allowPrivate: boolean): Promise<string | undefined> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'expected an http or https URL';
  if (allowPrivate) return undefined;
  const host = hostOf(url);
  let addresses: LookupAddress[];
  try {
    addresses = net.isIP(host)
      ? [{ address: host, family: net.isIP(host) }]
      : await dns.promises.lookup(host, { all: true });
  } catch {
    return `its host ${host} does not resolve`;
  }
  const bad = addresses.find((a) => isPrivateAddress(a.address));
  return bad
    ? `its host ${host} resolves to a private, loopback or link-local address (${bad.address})`
    : undefined;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for the delivery's connections that refuses private addresses: the check and
 * the connection use the same answer, so a name that resolves differently a moment later
 * (DNS rebinding) reaches nothing private either.
 */
export function guardedLookup(allowPrivate: boolean) {
  return (
    hostname: string,
    options: LookupOneOptions | LookupAllOptions,
    callback: LookupCallback,
  ): void => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const bad = allowPrivate ? undefined : addresses.find((a) => isPrivateAddress(a.address));
      if (bad) {
        const refused: NodeJS.ErrnoException = new Error(
          `refused: ${hostname} resolves to a private address (${bad.address})`,
        );
        refused.code = 'EPRIVATEADDRESS';
        return callback(refused, []);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}
