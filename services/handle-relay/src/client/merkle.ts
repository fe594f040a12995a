// RFC 9162 §2.1 Merkle tree hashing and proof verification, browser-safe (no Node built-ins).
import { sha256 } from '@noble/hashes/sha2';
import { fromHex, toHex, utf8 } from './hex.js';

/** SHA-256(0x00 ‖ leaf bytes): the hash of one log entry (RFC 9162 §2.1.1). */
export function leafHash(line: string | Uint8Array): Uint8Array {
  const bytes = typeof line === 'string' ? utf8(line) : line;
  const input = new Uint8Array(bytes.length + 1);
  input.set(bytes, 1);
  return sha256(input);
}

/** SHA-256(0x01 ‖ left ‖ right): an interior node (RFC 9162 §2.1.1). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  const input = new Uint8Array(65);
  input[0] = 1;
  input.set(left, 1);
  input.set(right, 33);
  return sha256(input);
}

/** The root of the empty tree: SHA-256 of nothing. */
export function emptyRoot(): Uint8Array {
  return sha256(new Uint8Array(0));
}

/** Lowercase hex SHA-256 of a link's line: what the next link's `prev` names. */
export function lineHash(line: string): string {
  return toHex(sha256(utf8(line)));
}

function hex32(value: string): Uint8Array | undefined {
  if (!/^[0-9a-f]{64}$/.test(value)) return undefined;
  return fromHex(value);
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * Verifies an inclusion proof (RFC 9162 §2.1.3.2): leaf `leaf` (hex leaf hash) at `index`
 * of the tree of `size` leaves whose root is `root` (hex).
 */
export function verifyInclusion(
  index: number,
  size: number,
  leaf: string,
  path: readonly string[],
  root: string,
): boolean {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) {
    return false;
  }
  const leafBytes = hex32(leaf);
  const rootBytes = hex32(root);
  if (!leafBytes || !rootBytes) return false;
  let fn = index;
  let sn = size - 1;
  let r = leafBytes;
  for (const p of path) {
    const node = hex32(p);
    if (!node || sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(node, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(r, node);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equal(r, rootBytes);
}

/**
 * Verifies a consistency proof (RFC 9162 §2.1.4.2) between the tree of `from` leaves with
 * root `fromRoot` and the tree of `to` leaves with root `toRoot` (hex).
 */
export function verifyConsistency(
  from: number,
  to: number,
  fromRoot: string,
  toRoot: string,
  path: readonly string[],
): boolean {
  const first = hex32(fromRoot);
  const second = hex32(toRoot);
  if (!first || !second || !Number.isSafeInteger(from) || !Number.isSafeInteger(to)) return false;
  if (from < 1 || from > to) return from === 0 && path.length === 0;
  if (from === to) return path.length === 0 && equal(first, second);
  if (path.length === 0) return false;
  const nodes: Uint8Array[] = [];
  for (const p of path) {
    const node = hex32(p);
    if (!node) return false;
    nodes.push(node);
  }
  // If first is an exact power of 2, prepend first_hash to the path.
  if (Number.isInteger(Math.log2(from))) nodes.unshift(first);
  let fn = from - 1;
  let sn = to - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = nodes[0]!;
  let sr = nodes[0]!;
  for (const c of nodes.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equal(fr, first) && equal(sr, second);
}

/** The text a signed tree head's signature covers. */
export function treeHeadMessage(size: number, root: string, timestamp: number): string {
  return `handle-relay log v1\n${size}\n${root}\n${timestamp}`;
}
