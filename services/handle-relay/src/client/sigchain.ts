// Signature chains (CONTRACT.md, "signature chains, key rotation, transparency log"):
// building, signing and verifying links. Browser-safe: tweetnacl and @noble/hashes only.
import nacl from 'tweetnacl';
import { canonicalJson } from './canonical-json.js';
import { fromHex, toHex, utf8 } from './hex.js';
import { lineHash } from './merkle.js';
import { primaryOf } from './keys.js';

/** One link of a handle's chain, as the relay serves it (one JSON line each). */
export interface SigchainLink {
  seq: number;
  prev: string | null;
  type: 'eldest' | 'rotate';
  /** `<handle>@<server>`. */
  handle: string;
  /** `ed25519:<hex>`: the handle's key from this link on. */
  key: string;
  ctime: number;
  sig: string;
  new_sig?: string;
}

/** The part of a link both signatures cover: everything but `sig` and `new_sig`. */
export function linkBody(link: SigchainLink): Omit<SigchainLink, 'sig' | 'new_sig'> {
  const { seq, prev, type, handle, key, ctime } = link;
  return { seq, prev, type, handle, key, ctime };
}

/** A link's line: its RFC 8785 text, exactly the bytes served, hashed and logged. */
export function linkLine(link: SigchainLink): string {
  return canonicalJson(link);
}

function sign(value: unknown, secretKey: Uint8Array): string {
  return toHex(nacl.sign.detached(utf8(canonicalJson(value)), secretKey));
}

function verify(value: unknown, keyHex: string, sigHex: string): boolean {
  if (!/^[0-9a-f]{64}$/.test(keyHex) || !/^[0-9a-fA-F]{128}$/.test(sigHex)) return false;
  return nacl.sign.detached.verify(utf8(canonicalJson(value)), fromHex(sigHex), fromHex(keyHex));
}

/** The hex public key of an `ed25519:<hex>` identity, or undefined. */
function keyHexOf(primary: string): string | undefined {
  const m = /^ed25519:([0-9a-f]{64})$/.exec(primary);
  return m ? m[1] : undefined;
}

/** The eldest link of a registration of `handle@server` at `ctime`, signed by its key. */
export function eldestLink(fqhn: string, secretKey: Uint8Array, ctime: number): SigchainLink {
  const body = {
    seq: 1,
    prev: null,
    type: 'eldest' as const,
    handle: fqhn,
    key: primaryOf(secretKey.slice(32)),
    ctime,
  };
  return { ...body, sig: sign(body, secretKey) };
}

/** What a rotation is made from: the chain's last line, the key in force and the new one. */
export interface RotationInput {
  /** The last line of the chain as served. */
  lastLine: string;
  /** tweetnacl 64-byte secret key of the key in force. */
  oldSecretKey: Uint8Array;
  newSecretKey: Uint8Array;
  /** Unix seconds; now by default. */
  ctime?: number;
}

/** A `rotate` link following `lastLine`, signed by the key in force and by the new key. */
export function rotationLink(input: RotationInput): SigchainLink {
  const last = JSON.parse(input.lastLine) as SigchainLink;
  const body = {
    seq: last.seq + 1,
    prev: lineHash(input.lastLine),
    type: 'rotate' as const,
    handle: last.handle,
    key: primaryOf(input.newSecretKey.slice(32)),
    ctime: input.ctime ?? Math.floor(Date.now() / 1000),
  };
  return { ...body, sig: sign(body, input.oldSecretKey), new_sig: sign(body, input.newSecretKey) };
}

/**
 * True when `link.sig` is a valid eldest signature: by `link.key` over the link's body,
 * or (a registration made by a client that did not sign its eldest link, which the relay
 * then records with the registration's own signature) over the registration payload the
 * link restates, `{server, handle, primary, ts}`.
 */
export function eldestSignatureValid(link: SigchainLink): boolean {
  const keyHex = keyHexOf(link.key);
  if (!keyHex) return false;
  if (verify(linkBody(link), keyHex, link.sig)) return true;
  const at = link.handle.lastIndexOf('@');
  const payload = {
    server: link.handle.slice(at + 1),
    handle: link.handle.slice(0, at),
    primary: link.key,
    ts: link.ctime,
  };
  return verify(payload, keyHex, link.sig);
}

/** A rotation's two signatures: `sig` by the key in force before it, `new_sig` by its key. */
export function rotationSignatureProblem(
  link: SigchainLink,
  keyInForce: string,
): string | undefined {
  const oldHex = keyHexOf(keyInForce);
  const newHex = keyHexOf(link.key);
  if (!oldHex || !newHex) return 'key must be ed25519:<64 lowercase hex>';
  if (!verify(linkBody(link), oldHex, link.sig)) {
    return 'sig did not verify by the key in force before the link';
  }
  if (!link.new_sig || !verify(linkBody(link), newHex, link.new_sig)) {
    return 'new_sig did not verify by the new key';
  }
  return undefined;
}

/** A verified chain: its links and the key in force after the last one. */
export interface VerifiedChain {
  handle: string;
  links: SigchainLink[];
  lines: string[];
  key: string;
}

/** Thrown when a chain does not verify; `message` says which link and why. */
export class SigchainError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SigchainError';
  }
}

/** Splits a served chain (`application/jsonl`) into its lines. */
export function chainLines(text: string): string[] {
  return text.split('\n').filter((line) => line !== '');
}

/**
 * Verifies a whole chain: each line canonical, seqs 1, 2, ..., each `prev` the hash of the
 * line before, one handle, an eldest link first and rotations after, every signature.
 */
export function verifyChain(lines: readonly string[]): VerifiedChain {
  if (lines.length === 0) throw new SigchainError('the chain is empty');
  const links: SigchainLink[] = [];
  let key = '';
  for (const [i, line] of lines.entries()) {
    const at = `link ${i + 1}`;
    let link: SigchainLink;
    try {
      link = JSON.parse(line) as SigchainLink;
    } catch {
      throw new SigchainError(`${at} is not JSON`);
    }
    if (typeof link !== 'object' || link === null || linkLine(link) !== line) {
      throw new SigchainError(`${at} is not in its canonical form`);
    }
    if (link.seq !== i + 1) throw new SigchainError(`${at} has seq ${String(link.seq)}`);
    const prev = i === 0 ? null : lineHash(lines[i - 1]!);
    if (link.prev !== prev) throw new SigchainError(`${at}: prev is not the previous line's hash`);
    if (i > 0 && link.handle !== links[0]!.handle) {
      throw new SigchainError(`${at} names another handle`);
    }
    if (!keyHexOf(link.key)) throw new SigchainError(`${at}: key is no ed25519 key`);
    if (i === 0) {
      if (link.type !== 'eldest') throw new SigchainError('the first link is not eldest');
      if (!eldestSignatureValid(link))
        throw new SigchainError('the eldest signature did not verify');
    } else {
      if (link.type !== 'rotate') throw new SigchainError(`${at} is not a rotation`);
      const problem = rotationSignatureProblem(link, key);
      if (problem) throw new SigchainError(`${at}: ${problem}`);
    }
    key = link.key;
    links.push(link);
  }
  return { handle: links[0]!.handle, links, lines: [...lines], key };
}
