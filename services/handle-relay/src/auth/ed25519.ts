import { createPublicKey, verify, type KeyObject } from 'node:crypto';

const HEX_KEY = /^[0-9a-f]{64}$/;

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
  if (HEX_KEY.test(keyHex)) {
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
