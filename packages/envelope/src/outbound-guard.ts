import dns from 'node:dns';
import net from 'node:net';

/*
 * The guard both services put in front of URLs their users give them (webhook targets, push
 * endpoints): which addresses are not the public internet, and a lookup that refuses them at
 * connect time. Hand-written: no maintained library covers the embedded IPv4 forms and a
 * rebinding-safe `lookup` together.
 */

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
  // Deprecated site-local, the old form of fc00::/7.
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(prefix, bits, 'ipv6');
}

/** The eight 16-bit groups of an IPv6 address (`net.isIP` already said it is one). */
function ipv6Groups(address: string): number[] {
  let text = address.replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    const high = ((a << 8) | b).toString(16);
    const low = ((c << 8) | d).toString(16);
    text = `${text.slice(0, dotted.index)}${high}:${low}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const first = parse(head);
  const last = tail === undefined ? [] : parse(tail);
  return [...first, ...Array<number>(8 - first.length - last.length).fill(0), ...last];
}

const ipv4Of = (high: number, low: number): string =>
  [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');

/**
 * The IPv4 address an IPv6 one carries and leads to: IPv4-mapped (::ffff:0:0/96),
 * IPv4-compatible (::/96), NAT64 (64:ff9b::/96) and 6to4 (2002::/16).
 */
function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (g[0] === 0x2002) return ipv4Of(g[1]!, g[2]!);
  const nat64 = g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6);
  const mappedOrCompatible = zeros(0, 5) && (g[5] === 0xffff || g[5] === 0);
  if (nat64 || mappedOrCompatible) return ipv4Of(g[6]!, g[7]!);
  return undefined;
}

/**
 * True for loopback, private, link-local, shared, multicast and unspecified addresses,
 * including IPv4 addresses carried inside IPv6 ones (mapped, compatible, NAT64, 6to4), and
 * for anything that is not an IP address at all.
 */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  if (blocked.check(address, 'ipv6')) return true;
  const v4 = embeddedIpv4(address);
  return v4 !== undefined && blocked.check(v4, 'ipv4');
}

/** A URL's host as a resolver takes it: no IPv6 brackets, no trailing dot of a qualified name. */
export function urlHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
}

/** `localhost` and every name under it are loopback (RFC 6761), whatever DNS would say. */
export function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * Every address `host` resolves to (itself when it is a literal), or undefined when it does
 * not resolve within `timeoutMs`.
 */
export async function resolveHost(host: string, timeoutMs = 2_000): Promise<string[] | undefined> {
  if (net.isIP(host)) return [host];
  const lookup = dns.promises
    .lookup(host, { all: true, verbatim: true })
    .then((found) => found.map((a) => a.address))
    .catch(() => undefined);
  const timeout = new Promise<undefined>((resolve) => {
    setTimeout(() => resolve(undefined), timeoutMs).unref();
  });
  return Promise.race([lookup, timeout]);
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for outbound connections that refuses private answers (and empty ones): the
 * check and the connection use the same answer, so a name that resolved publicly when it was
 * accepted cannot be re-pointed at the internal network later (DNS rebinding).
 * `what` names the connection in the error, e.g. "webhook target".
 */
export function privateRefusingLookup(what: string) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) {
        callback(err, []);
        return;
      }
      const bad = addresses.find((a) => isPrivateAddress(a.address));
      if (bad || addresses.length === 0) {
        const refused: NodeJS.ErrnoException = new Error(
          `refused: ${what} ${hostname} resolves to a private address${bad ? ` (${bad.address})` : ''}`,
        );
        refused.code = 'EPRIVATEADDRESS';
        callback(refused, []);
        return;
      }
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
