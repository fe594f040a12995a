import dns from 'node:dns';
import net from 'node:net';

const blocked = new net.BlockList();
for (const [prefix, bits] of [
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
  blocked.addSubnet(prefix, bits, 'ipv4');
}
for (const [prefix, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(prefix, bits, 'ipv6');
}

/**
 * True for loopback, private, link-local, shared, multicast and unspecified addresses,
 * including IPv4 addresses written as IPv4-mapped IPv6.
 */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return blocked.check(mapped[1], 'ipv4');
  return blocked.check(address, 'ipv6');
}

/** A URL host without IPv6 brackets. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** How long subscribe waits for name resolution before deciding without it. */
const RESOLVE_TIMEOUT_MS = 2_000;

async function resolveAll(host: string): Promise<string[] | undefined> {
  const lookup = dns.promises
    .lookup(host, { all: true, verbatim: true })
    .then((found) => found.map((a) => a.address))
    .catch(() => undefined);
  const timeout = new Promise<undefined>((resolve) => {
    setTimeout(() => resolve(undefined), RESOLVE_TIMEOUT_MS).unref();
  });
  return Promise.race([lookup, timeout]);
}

/**
 * Why a push endpoint is refused, or `undefined` when it is acceptable. Without
 * `allowPrivate`: `https:` only, and the host must not be (or resolve to) a private
 * address. A host that does not resolve now is accepted: delivery resolves it again
 * through the guarded lookup below, which refuses private answers at connect time.
 */
export async function endpointProblem(
  endpoint: string,
  allowPrivate: boolean,
): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'endpoint must be an absolute URL';
  }
  if (allowPrivate) {
    return url.protocol === 'https:' || url.protocol === 'http:'
      ? undefined
      : 'endpoint must be an http: or https: URL';
  }
  if (url.protocol !== 'https:') return 'endpoint must be an https: URL';
  const host = bareHost(url);
  const addresses = net.isIP(host) ? [host] : await resolveAll(host);
  if (addresses?.some(isPrivateAddress)) {
    return 'endpoint must not resolve to a loopback, private or link-local address';
  }
  return undefined;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/**
 * A `net.connect` lookup that refuses private answers, so a host that resolved publicly at
 * subscribe time cannot be re-pointed at the internal network later (DNS rebinding).
 */
export function guardedLookup(
  hostname: string,
  options: dns.LookupOptions,
  callback: LookupCallback,
): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) {
      callback(err, []);
      return;
    }
    const list = addresses;
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (bad || list.length === 0) {
      const refused: NodeJS.ErrnoException = new Error(
        `push endpoint ${hostname} resolves to a private address`,
      );
      refused.code = 'EPRIVATEADDRESS';
      callback(refused, []);
      return;
    }
    if (options.all) callback(null, list);
    else callback(null, list[0]!.address, list[0]!.family);
  });
}
