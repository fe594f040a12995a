// Verifying a peer's key: its chain, the chain's inclusion in a signed tree head, each new
// head's consistency with the last one kept, and a pin on first use (CONTRACT.md,
// "signature chains, key rotation, transparency log"). Browser-safe; the pin store is a
// port (a JSON file in the CLI, IndexedDB in the web app).
import nacl from 'tweetnacl';
import { fromHex, utf8, toHex } from './hex.js';
import type { RelayClient, TreeHead } from './http-client.js';
import { leafHash, treeHeadMessage, verifyConsistency, verifyInclusion } from './merkle.js';
import { verifyChain, type VerifiedChain } from './sigchain.js';

/**
 * The safety number of a conversation: SHA-512 over the two Ed25519 public keys (32 bytes
 * each) concatenated in ascending byte order; its first 60 bytes in twelve 5-byte chunks,
 * each a big-endian integer modulo 100000 written as 5 digits. Twelve groups joined by
 * spaces, the same on both sides.
 */
export function safetyNumber(a: Uint8Array | string, b: Uint8Array | string): string {
  const bytes = (k: Uint8Array | string) =>
    typeof k === 'string' ? fromHex(k.startsWith('ed25519:') ? k.slice(8) : k) : k;
  const [x, y] = [bytes(a), bytes(b)];
  if (x.length !== 32 || y.length !== 32) throw new Error('safety numbers need two 32-byte keys');
  const [first, second] = compare(x, y) <= 0 ? [x, y] : [y, x];
  const input = new Uint8Array(64);
  input.set(first, 0);
  input.set(second, 32);
  const digest = nacl.hash(input);
  const groups: string[] = [];
  for (let i = 0; i < 12; i++) {
    let value = 0;
    for (let j = 0; j < 5; j++) value = value * 256 + digest[i * 5 + j]!;
    groups.push(String(value % 100000).padStart(5, '0'));
  }
  return groups.join(' ');
}

function compare(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/** A key pinned for a handle on first use (or accepted since). */
export interface Pin {
  key: string;
  /** When it was pinned, epoch ms. */
  at: number;
}

/** Where pins and the last kept tree head live. */
export interface PinStore {
  getPin(fqhn: string): Promise<Pin | undefined>;
  setPin(fqhn: string, pin: Pin): Promise<void>;
  getHead(): Promise<TreeHead | undefined>;
  setHead(head: TreeHead): Promise<void>;
}

/** A pin store in memory (tests, one-shot tools). */
export class MemoryPinStore implements PinStore {
  readonly pins = new Map<string, Pin>();
  head: TreeHead | undefined;
  getPin(fqhn: string) {
    return Promise.resolve(this.pins.get(fqhn));
  }
  setPin(fqhn: string, pin: Pin) {
    this.pins.set(fqhn, pin);
    return Promise.resolve();
  }
  getHead() {
    return Promise.resolve(this.head);
  }
  setHead(head: TreeHead) {
    this.head = head;
    return Promise.resolve();
  }
}

/** Thrown when a proof, a head or a chain does not verify: the relay is not to be trusted. */
export class TrustError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TrustError';
  }
}

/** True when the head's signature verifies by the key it names. */
export function headSignatureValid(head: TreeHead): boolean {
  const m = /^ed25519:([0-9a-f]{64})$/.exec(head.key);
  if (!m || !/^[0-9a-f]{128}$/.test(head.sig)) return false;
  return nacl.sign.detached.verify(
    utf8(treeHeadMessage(head.size, head.root, head.timestamp)),
    fromHex(head.sig),
    fromHex(m[1]!),
  );
}

/**
 * Fetches the signed head and checks it: its signature, the same log key as the head kept,
 * and (when it grew) a consistency proof from the kept head. Keeps the new head.
 */
export async function advanceHead(client: RelayClient, store: PinStore): Promise<TreeHead> {
  const head = await client.logHead();
  if (!headSignatureValid(head)) throw new TrustError('the tree head signature did not verify');
  const kept = await store.getHead();
  if (kept) {
    if (kept.key !== head.key) {
      throw new TrustError(`the log key changed from ${kept.key} to ${head.key}`);
    }
    if (head.size < kept.size) {
      throw new TrustError(`the log shrank from ${kept.size} to ${head.size} leaves`);
    }
    if (head.size === kept.size && head.root !== kept.root) {
      throw new TrustError(`two different roots for a tree of ${head.size} leaves`);
    }
    if (head.size > kept.size && kept.size > 0) {
      const { path } = await client.logConsistency(kept.size, head.size);
      if (!verifyConsistency(kept.size, head.size, kept.root, head.root, path)) {
        throw new TrustError(
          `the tree of ${head.size} is not consistent with the kept ${kept.size}`,
        );
      }
    }
  }
  await store.setHead(head);
  return head;
}

/** Checks that every line of a chain is a leaf of the tree under `head`. */
export async function checkChainLogged(
  client: RelayClient,
  lines: readonly string[],
  head: TreeHead,
): Promise<void> {
  for (const [i, line] of lines.entries()) {
    const leaf = toHex(leafHash(line));
    let proof;
    try {
      proof = await client.logInclusion(leaf, head.size);
    } catch {
      throw new TrustError(`link ${i + 1} of the chain is not in the log`);
    }
    if (!verifyInclusion(proof.index, head.size, leaf, proof.path, head.root)) {
      throw new TrustError(`the inclusion proof of link ${i + 1} did not verify`);
    }
  }
}

/**
 * How the key a handle has now compares with its pin: `first-use` (none was pinned: now
 * it is), `same`, `rotated` (a logged rotation signed by the pinned key explains the
 * change: the pin moves), `changed` (nothing explains it: the pin stays, and a client
 * warns and blocks sending until the user accepts the new key).
 */
export type PinStatus = 'first-use' | 'same' | 'rotated' | 'changed';

/** What verifying a handle found. */
export interface VerifiedHandle {
  fqhn: string;
  key: string;
  status: PinStatus;
  /** The pinned key before this check (for `changed`: still pinned). */
  pinned?: string;
  chain: VerifiedChain;
  head: TreeHead;
}

/**
 * True when the chain holds the pinned key and every later link is a rotation (each signed
 * by the key before it, which `verifyChain` checked): the change is the owner's doing.
 */
export function rotationExplains(chain: VerifiedChain, pinnedKey: string): boolean {
  const at = chain.links.findIndex((l) => l.key === pinnedKey);
  return at >= 0 && chain.links.slice(at + 1).every((l) => l.type === 'rotate');
}

/**
 * Verifies `handle`'s key: the record, its whole chain (every signature), every link's
 * inclusion in a fresh signed head consistent with the kept one, then the pin.
 */
export async function verifyHandle(
  client: RelayClient,
  store: PinStore,
  handle: string,
  now: () => number = Date.now,
): Promise<VerifiedHandle> {
  const record = await client.lookup(handle);
  let chain: VerifiedChain;
  try {
    chain = verifyChain(await client.sigchain(record.primary));
  } catch (err) {
    throw new TrustError(`the chain of ${record.fqhn} did not verify: ${(err as Error).message}`);
  }
  if (chain.key !== record.primary) {
    throw new TrustError(`the chain of ${record.fqhn} ends at ${chain.key}, not ${record.primary}`);
  }
  if (chain.handle !== record.fqhn) {
    throw new TrustError(`the chain names ${chain.handle}, not ${record.fqhn}`);
  }
  const head = await advanceHead(client, store);
  await checkChainLogged(client, chain.lines, head);
  const pin = await store.getPin(record.fqhn);
  let status: PinStatus;
  if (!pin) status = 'first-use';
  else if (pin.key === chain.key) status = 'same';
  else if (rotationExplains(chain, pin.key)) status = 'rotated';
  else status = 'changed';
  if (status === 'first-use' || status === 'rotated') {
    await store.setPin(record.fqhn, { key: chain.key, at: now() });
  }
  return { fqhn: record.fqhn, key: chain.key, status, pinned: pin?.key, chain, head };
}
