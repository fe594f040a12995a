import { verifyEd25519 } from '../auth/ed25519.js';
import { canonicalJson } from '../client/canonical-json.js';
import { relayErrors } from '../errors.js';
import { validate } from '../http/validate.js';
import { formatPrimary, parsePrimary } from '../auth/primary-key.js';
import { handleProblem } from './handle-rules.js';
import { registrationSchema } from './handle.schemas.js';

/** The only signature suite accepted for registrations. */
export const REGISTRATION_ALG = 'ed25519-sha512-jcs';
/** Allowed distance between the server clock and `payload.ts`, either way. */
export const REGISTRATION_SKEW_SECONDS = 300;

/** A registration that passed every check before storage. */
export interface VerifiedRegistration {
  handle: string;
  primary: string;
  /** `payload.ts`, the eldest link's `ctime`. */
  ts: number;
  /**
   * The eldest link's `sig`: `payload.eldest_sig` when it signs the eldest link's body
   * (our clients send it), else the registration's own signature (a spec client's; the
   * link restates the payload it covers when the payload had only the four fields).
   */
  eldestSig: string;
}

/**
 * Checks a registration body in the spec's order: (a) envelope and signature, (b) server,
 * (c) handle rules, (d) timestamp skew. Each failure is a 400 with its own message.
 */
export function verifyRegistration(
  body: unknown,
  server: string,
  nowMs: number,
): VerifiedRegistration {
  if (body === undefined) {
    throw relayErrors.registrationMissing();
  }
  const { payload, signature } = validate(registrationSchema, body);
  if (signature.alg !== REGISTRATION_ALG) {
    throw relayErrors.unsupportedAlg(signature.alg, REGISTRATION_ALG);
  }
  const key = parsePrimary(signature.key);
  if (!key) throw relayErrors.invalidSignatureKey();
  if (signature.key !== payload.primary) {
    throw relayErrors.signatureKeyMismatch();
  }
  // The signed bytes are those of the payload as sent, unknown fields included.
  const sent = (body as { payload: unknown }).payload;
  const signed = Buffer.from(canonicalPayload(sent), 'utf8');
  if (!verifyEd25519(key.keyHex, signed, signature.sig)) {
    throw relayErrors.registrationSignature();
  }
  // The spec: the payload's server "must equal the configured server name" (exactly; the
  // signed bytes name it as the client meant it).
  if (payload.server !== server) {
    throw relayErrors.serverMismatch(payload.server, server);
  }
  const problem = handleProblem(payload.handle);
  if (problem) throw relayErrors.invalidHandle(problem);
  if (Math.abs(Math.floor(nowMs / 1000) - payload.ts) > REGISTRATION_SKEW_SECONDS) {
    throw relayErrors.registrationSkew(REGISTRATION_SKEW_SECONDS);
  }
  const primary = formatPrimary(key);
  const eldest = {
    seq: 1,
    prev: null,
    type: 'eldest',
    handle: `${payload.handle}@${server}`,
    key: primary,
    ctime: payload.ts,
  };
  const eldestSig = payload.eldest_sig;
  const signsEldest =
    typeof eldestSig === 'string' &&
    /^[0-9a-fA-F]{128}$/.test(eldestSig) &&
    verifyEd25519(key.keyHex, Buffer.from(canonicalJson(eldest), 'utf8'), eldestSig);
  return {
    handle: payload.handle,
    primary,
    ts: payload.ts,
    eldestSig: (signsEldest ? eldestSig : signature.sig).toLowerCase(),
  };
}

/**
 * The JCS bytes of the payload as sent. An extra field may hold anything the body parser
 * takes, and the canonicalizer refuses two such things: nesting deeper than it can recurse
 * into (a RangeError), and a number JSON.parse read as Infinity (`1e400`), which RFC 8785
 * cannot write. Both are the client's input: a 400 like every other registration failure.
 */
function canonicalPayload(sent: unknown): string {
  try {
    return canonicalJson(sent);
  } catch (err) {
    if (err instanceof RangeError) {
      throw relayErrors.payloadTooDeep();
    }
    throw relayErrors.payloadNumber();
  }
}
