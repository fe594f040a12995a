import { relayErrors } from '../errors.js';
import { parsePrimary } from './primary-key.js';
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
  /** The same lines with the handle as the path spelled it (see `verifyAuthSignature`). */
  spelledLines?: readonly string[];
  /** Server time in epoch milliseconds (`deps.now()`). */
  now: number;
}

/** The exact bytes a client signs: the lines plus `<ts>`, joined by `\n`, no trailing one. */
export function canonicalMessage(lines: readonly string[], ts: number | string): string {
  return [...lines, String(ts)].join('\n');
}

/** An auth value that is well formed and fresh, its signature not yet checked. */
export interface FreshAuthValue {
  /** The timestamp as sent: the signed line is this text. */
  tsText: string;
  sigHex: string;
}

/**
 * The checks of an auth value that need no key and no body: present, `<unix_ts>:<sig_hex>`
 * with an integer timestamp, at most 60 s from the server clock. Throws 401 `unauthorized`.
 */
export function readAuthValue(value: string | undefined, now: number): FreshAuthValue {
  if (value === undefined || value === '') throw relayErrors.missingAuth();
  const colon = value.indexOf(':');
  if (colon < 0) throw relayErrors.malformedAuth();
  const tsText = value.slice(0, colon);
  if (!TS.test(tsText)) throw relayErrors.malformedAuth();
  const nowSeconds = Math.floor(now / 1000);
  if (Math.abs(nowSeconds - Number(tsText)) > SIGNED_REQUEST_SKEW_SECONDS) {
    throw relayErrors.staleAuth();
  }
  return { tsText, sigHex: value.slice(colon + 1) };
}

/**
 * Throws 401 unless `auth` signs exactly these lines (plus its timestamp) with `primary`'s
 * key. Paths fold case, and the spec's `<handle>` in a line can be read as the handle or as
 * the path's spelling of it: `spelledLines`, the lines with the handle as the path spelled
 * it, verify too. Both name the same handle and operation, so neither widens what a
 * signature allows.
 */
export function verifyAuthSignature(
  auth: FreshAuthValue,
  primary: string,
  lines: readonly string[],
  spelledLines?: readonly string[],
): void {
  const key = parsePrimary(primary);
  const signs = (signed: readonly string[]) =>
    !!key &&
    verifyEd25519(
      key.keyHex,
      Buffer.from(canonicalMessage(signed, auth.tsText), 'utf8'),
      auth.sigHex,
    );
  if (signs(lines)) return;
  if (spelledLines && spelledLines.join('\n') !== lines.join('\n') && signs(spelledLines)) return;
  throw relayErrors.badSignature();
}

/**
 * The one `X-ID-Auth` verifier of every protected route. Throws 401 `unauthorized`:
 * missing value, malformed value, stale timestamp (> 60 s either way), or a signature
 * that does not verify for exactly these lines and key. Returns the signed timestamp.
 */
export function verifySignedRequest(input: SignedRequestInput): number {
  const auth = readAuthValue(input.value, input.now);
  verifyAuthSignature(auth, input.primary, input.lines, input.spelledLines);
  return Number(auth.tsText);
}
