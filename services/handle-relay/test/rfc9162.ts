// An independent reference for RFC 9162 §2.1, written from the RFC's definitions for the
// tests (node:crypto, none of the relay's code): MTH, PATH and PROOF straight from
// §2.1.1, §2.1.3.1 and §2.1.4.1 over the whole list of entries, and the verification
// algorithms of §2.1.3.2 and §2.1.4.2.
import { createHash } from 'node:crypto';

const sha256 = (...parts: Uint8Array[]): Buffer => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

/** SHA-256(0x00 ‖ entry). */
export const refLeaf = (entry: string): Buffer =>
  sha256(Buffer.from([0]), Buffer.from(entry, 'utf8'));
const node = (l: Uint8Array, r: Uint8Array): Buffer => sha256(Buffer.from([1]), l, r);

/** k: the largest power of two smaller than n. */
const split = (n: number): number => 2 ** Math.floor(Math.log2(n - 1));

/** MTH(D[n]) (§2.1.1). */
export function refMth(entries: readonly string[]): Buffer {
  if (entries.length === 0) return sha256();
  if (entries.length === 1) return refLeaf(entries[0]!);
  const k = split(entries.length);
  return node(refMth(entries.slice(0, k)), refMth(entries.slice(k)));
}

/** PATH(m, D[n]) (§2.1.3.1), hex. */
export function refPath(m: number, entries: readonly string[]): string[] {
  const n = entries.length;
  if (n <= 1) return [];
  const k = split(n);
  return m < k
    ? [...refPath(m, entries.slice(0, k)), refMth(entries.slice(k)).toString('hex')]
    : [...refPath(m - k, entries.slice(k)), refMth(entries.slice(0, k)).toString('hex')];
}

function subproof(m: number, entries: readonly string[], b: boolean): string[] {
  const n = entries.length;
  if (m === n) return b ? [] : [refMth(entries).toString('hex')];
  const k = split(n);
  return m <= k
    ? [...subproof(m, entries.slice(0, k), b), refMth(entries.slice(k)).toString('hex')]
    : [...subproof(m - k, entries.slice(k), false), refMth(entries.slice(0, k)).toString('hex')];
}

/** PROOF(m, D[n]) (§2.1.4.1), hex. */
export const refProof = (m: number, entries: readonly string[]): string[] =>
  subproof(m, entries, true);

/** §2.1.3.2, with BigInt shifts. */
export function refVerifyInclusion(
  index: number,
  size: number,
  leafHex: string,
  path: readonly string[],
  rootHex: string,
): boolean {
  if (index >= size) return false;
  let fn = BigInt(index);
  let sn = BigInt(size - 1);
  let r: Buffer = Buffer.from(leafHex, 'hex');
  for (const p of path) {
    const pb = Buffer.from(p, 'hex');
    if (sn === 0n) return false;
    if ((fn & 1n) === 1n || fn === sn) {
      r = node(pb, r);
      if ((fn & 1n) === 0n) {
        while (!((fn & 1n) === 1n || fn === 0n)) {
          fn >>= 1n;
          sn >>= 1n;
        }
      }
    } else {
      r = node(r, pb);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  return sn === 0n && r.toString('hex') === rootHex;
}

/** §2.1.4.2, with BigInt shifts. */
export function refVerifyConsistency(
  first: number,
  second: number,
  firstHex: string,
  secondHex: string,
  proof: readonly string[],
): boolean {
  if (first === second) return proof.length === 0 && firstHex === secondHex;
  if (proof.length === 0) return false;
  const path: Buffer[] = proof.map((p) => Buffer.from(p, 'hex'));
  if ((first & (first - 1)) === 0) path.unshift(Buffer.from(firstHex, 'hex'));
  let fn = BigInt(first - 1);
  let sn = BigInt(second - 1);
  while ((fn & 1n) === 1n) {
    fn >>= 1n;
    sn >>= 1n;
  }
  let fr: Buffer = path[0]!;
  let sr: Buffer = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0n) return false;
    if ((fn & 1n) === 1n || fn === sn) {
      fr = node(c, fr);
      sr = node(c, sr);
      if ((fn & 1n) === 0n) {
        while (!((fn & 1n) === 1n || fn === 0n)) {
          fn >>= 1n;
          sn >>= 1n;
        }
      }
    } else {
      sr = node(sr, c);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  return sn === 0n && fr.toString('hex') === firstHex && sr.toString('hex') === secondHex;
}
