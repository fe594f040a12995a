import nacl from 'tweetnacl';
import { canonicalJson } from './canonical-json.js';
import { toHex, utf8 } from './hex.js';
import { primaryOf } from './keys.js';
import { eldestLink } from './sigchain.js';

/** The only registration signature suite the relay accepts. */
export const REGISTRATION_ALG = 'ed25519-sha512-jcs';

/** The signed body of `POST /v1/register`. */
export interface RegistrationEnvelope {
  payload: { server: string; handle: string; primary: string; ts: number } & Record<
    string,
    unknown
  >;
  signature: { alg: string; key: string; sig: string };
}

/** What to register; `ts` (Unix seconds) defaults to now. */
export interface RegistrationInput {
  server: string;
  handle: string;
  secretKey: Uint8Array;
  ts?: number;
}

/** Current Unix time in whole seconds. */
export function unixNow(): number {
  return Math.floor(Date.now() / 1000);
}

/** Hex Ed25519 signature of the RFC 8785 canonical bytes of `payload`. */
export function signJcs(payload: unknown, secretKey: Uint8Array): string {
  return toHex(nacl.sign.detached(utf8(canonicalJson(payload)), secretKey));
}

/**
 * Builds and signs a registration envelope for the key's own primary. The payload also
 * carries `eldest_sig`, the signature of the eldest link the relay writes for it, so the
 * chain's first link is signed over its own body (CONTRACT.md, signature chains).
 */
export function signRegistration(input: RegistrationInput): RegistrationEnvelope {
  const primary = primaryOf(input.secretKey.slice(32));
  const ts = input.ts ?? unixNow();
  const eldest = eldestLink(`${input.handle}@${input.server}`, input.secretKey, ts);
  const payload = {
    server: input.server,
    handle: input.handle,
    primary,
    ts,
    eldest_sig: eldest.sig,
  };
  return {
    payload,
    signature: { alg: REGISTRATION_ALG, key: primary, sig: signJcs(payload, input.secretKey) },
  };
}

/**
 * An `X-ID-Auth` value `<ts>:<sig_hex>`: the signature covers `lines`, then `<ts>`, joined
 * by `\n` with no trailing newline.
 */
export function signedAuthValue(
  secretKey: Uint8Array,
  lines: readonly string[],
  ts: number = unixNow(),
): string {
  const message = [...lines, String(ts)].join('\n');
  return `${ts}:${toHex(nacl.sign.detached(utf8(message), secretKey))}`;
}

/** Canonical lines (without `<ts>`) of each signed operation, per the spec's table. */
export const authLines = {
  /** `PUT /v1/profile/<handle>/proofs`. */
  setProofs: (handle: string) => ['PUT', `/v1/profile/${handle}/proofs`],
  /** `POST /v1/push/<verb>/<handle>` binding the endpoint. */
  push: (verb: 'subscribe' | 'unsubscribe', handle: string, endpoint: string) => [
    verb,
    `/v1/push/${verb}/${handle}`,
    endpoint,
  ],
  /** `GET /v1/inbox/<handle>?since=<n>` binding the cursor. */
  inbox: (handle: string, since: number) => ['GET', `/v1/inbox/${handle}`, `since=${since}`],
  /** `GET /v1/inbox/<handle>/stream` (value sent as query `auth`). */
  stream: (handle: string) => ['GET', `/v1/inbox/${handle}/stream`],
};
