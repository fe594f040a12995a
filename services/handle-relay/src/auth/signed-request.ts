import { relayErrors } from '../errors.js';
import { parsePrimary } from '../handles/handle-rules.js';
import { verifyEd25519 } from './ed25519.js';

/** Allowed distance between the server clock and the signed `<unix_ts>`, either way. */
export const SIGNED_REQUEST_SKEW_SECONDS = 60;

const TS = /^-?\d{1,15}$/;

/** What one protected request must prove. */
export interface SignedRequestInput {
  /** The `X-ID-Auth` header (or stream `auth` query) value: `<unix_ts>:<sig_hex>`. */
  value: string | undefined;
  /** The handle's primary, `ed25519:<hex>`; its key is the verifying key. */
  primary: string;
  /** Canonical lines of the operation WITHOUT the timestamp line (it is appended here). */
  lines: readonly string[];
  /** Server time in epoch milliseconds (`deps.now()`). */
  now: number;
}

/** The exact bytes a client signs: the lines plus `<ts>`, joined by `\n`, no trailing one. */
export function canonicalMessage(lines: readonly string[], ts: number | string): string {
  return [...lines, String(ts)].join('\n');
}

/**
 * The one `X-ID-Auth` verifier of every protected route. Throws 401 `unauthorized`:
 * missing value, malformed value, stale timestamp (> 60 s either way), or a signature
 * that does not verify for exactly these lines and key. Returns the signed timestamp.
 */
export function verifySignedRequest(input: SignedRequestInput): number {
  const { value } = input;
  if (value === undefined || value === '') throw relayErrors.missingAuth();
  const colon = value.indexOf(':');
  if (colon < 0) throw relayErrors.malformedAuth();
  const tsText = value.slice(0, colon);
  if (!TS.test(tsText)) throw relayErrors.malformedAuth();
  const ts = Number(tsText);
  const nowSeconds = Math.floor(input.now / 1000);
  if (Math.abs(nowSeconds - ts) > SIGNED_REQUEST_SKEW_SECONDS) throw relayErrors.staleAuth();
  const primary = parsePrimary(input.primary);
  const message = Buffer.from(canonicalMessage(input.lines, tsText), 'utf8');
  if (!primary || !verifyEd25519(primary.keyHex, message, value.slice(colon + 1))) {
    throw relayErrors.badSignature();
  }
  return ts;
}
