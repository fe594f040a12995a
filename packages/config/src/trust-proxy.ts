import proxyaddr from 'proxy-addr';
import { z } from 'zod';

/**
 * `trust_proxy`, read as Express's `trust proxy`: `false` (the peer is the client), `true`
 * (the left-most forwarded address), a hop count, or the addresses/CIDRs of trusted proxies
 * (proxy-addr's names `loopback`, `linklocal`, `uniquelocal` too).
 */
export type TrustProxy = boolean | number | readonly string[];

/** Env and flag values arrive as text: `true`/`false`, a count, or a comma-separated list. */
function fromText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (/^(true|false)$/i.test(text)) return text.toLowerCase() === 'true';
  if (/^\d+$/.test(text)) return Number(text);
  return text.split(',').map((part) => part.trim());
}

function compiles(list: readonly string[]): boolean {
  try {
    proxyaddr.compile([...list]);
    return true;
  } catch {
    return false;
  }
}

/** The `trust_proxy` setting of both services; default `false`. */
export const trustProxySetting = z.preprocess(
  fromText,
  z.union([
    z.boolean(),
    z.number().int().min(0),
    z
      .array(z.string().min(1))
      .min(1)
      .refine(
        compiles,
        'expected IP addresses or CIDR ranges (or loopback, linklocal, uniquelocal)',
      ),
  ]),
);
