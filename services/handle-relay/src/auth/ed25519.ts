import { createPublicKey, verify, type KeyObject } from 'node:crypto';

const HEX_KEY = /^[0-9a-f]{64}$/;

/** 2^255 - 19, the field Ed25519's coordinates live in. */
const P = (1n << 255n) - 19n;

/**
 * The y coordinates of the points of small order (1, 2, 4 and 8): 1, -1, 0, and the two
 * roots of d·y⁴ + 2y² - 1 = 0, where doubling lands on a point of order 4. With such a
 * public key, R of small order and S = 0 make a signature that verifies for every message,
 * and OpenSSL accepts it; so these keys are refused like bytes that are no point at all.
 */
const SMALL_ORDER_Y = new Set([
  0n,
  1n,
  P - 1n,
  littleEndian(
    Buffer.from('26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05', 'hex'),
  ),
  littleEndian(
    Buffer.from('c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a', 'hex'),
  ),
]);

function littleEndian(bytes: Buffer): bigint {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]!);
  return n;
}

/**
 * True when an encoded key names a point of small order. The top bit is the sign of x; the
 * rest is y, which an encoding may also spell as y + p.
 */
export function hasSmallOrder(key: Buffer): boolean {
  const y = littleEndian(key) & ((1n << 255n) - 1n);
  return SMALL_ORDER_Y.has(y % P);
}

/** Most public keys kept as parsed KeyObjects, so a signed request never parses its key. */
export const KEY_CACHE_LIMIT = 10_000;

const cache = new Map<string, KeyObject | null>();

/**
 * The cached public KeyObject for a lowercase hex key, or `null` when the bytes are not a
 * usable Ed25519 key. Least recently used entries leave first when the cache is full.
 */
export function publicKeyFromHex(keyHex: string): KeyObject | null {
  const hit = cache.get(keyHex);
  if (hit !== undefined) {
    cache.delete(keyHex);
    cache.set(keyHex, hit);
    return hit;
  }
  let key: KeyObject | null = null;
  if (HEX_KEY.test(keyHex) && !hasSmallOrder(Buffer.from(keyHex, 'hex'))) {
    try {
      // JWK import builds the key from the raw bytes; DER goes through OpenSSL's decoder
      // and costs about ten times more, as much as a verify (every registration pays it).
      key = createPublicKey({
        key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(keyHex, 'hex').toString('base64url') },
        format: 'jwk',
      });
    } catch {
      key = null;
    }
  }
  if (cache.size >= KEY_CACHE_LIMIT) {
    const oldest = cache.keys().next();
    if (!oldest.done) cache.delete(oldest.value);
  }
  cache.set(keyHex, key);
  return key;
}

/** How many keys the cache holds now (for tests and metrics). */
export function keyCacheSize(): number {
  return cache.size;
}

/**
 * Verifies a hex Ed25519 signature over `message` with a lowercase hex public key.
 * Anything malformed (key or signature) is simply "does not verify".
 */
export function verifyEd25519(keyHex: string, message: Uint8Array, sigHex: string): boolean {
  if (sigHex.length !== 128) return false;
  // Buffer.from stops at the first non-hex pair, so a short result means "not hex".
  const sig = Buffer.from(sigHex, 'hex');
  if (sig.length !== 64) return false;
  const key = publicKeyFromHex(keyHex);
  if (!key) return false;
  try {
    return verify(null, message, key, sig);
  } catch {
    return false;
  }
}
