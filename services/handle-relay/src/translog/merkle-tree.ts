// The RFC 9162 §2.1 tree as stored: complete subtrees by (level, idx). Proofs are planned
// as a list of subtree ranges, each range made of O(log n) stored complete subtrees.
import { emptyRoot, nodeHash } from '../client/merkle.js';

/** A stored complete subtree: leaves [idx·2^level, (idx+1)·2^level). */
export interface NodeRef {
  level: number;
  idx: number;
}

/** The key a node is kept under in a map. */
export function nodeKey(level: number, idx: number): string {
  return `${level}/${idx}`;
}

/** The largest power of two smaller than `n` (n ≥ 2). */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** A range of leaves [start, end) whose MTH a proof needs. */
export interface Range {
  start: number;
  end: number;
}

/** RFC 9162 §2.1.3.1 PATH(m, D[start:end]) as ranges, leaf side first. */
export function inclusionRanges(m: number, start: number, end: number): Range[] {
  const n = end - start;
  if (n <= 1) return [];
  const k = splitPoint(n);
  if (m < k) return [...inclusionRanges(m, start, start + k), { start: start + k, end }];
  return [...inclusionRanges(m - k, start + k, end), { start, end: start + k }];
}

/** RFC 9162 §2.1.4.1 SUBPROOF(m, D[start:end], b) as ranges. */
export function consistencyRanges(m: number, start: number, end: number, b = true): Range[] {
  const n = end - start;
  if (m === n) return b ? [] : [{ start, end }];
  const k = splitPoint(n);
  if (m <= k) return [...consistencyRanges(m, start, start + k, b), { start: start + k, end }];
  return [...consistencyRanges(m - k, start + k, end, false), { start, end: start + k }];
}

/**
 * The complete subtrees a range is made of, left to right. Ranges from the proofs above
 * (and the whole tree [0, n)) start at a multiple of their left part's size, so each part is
 * a stored node.
 */
export function rangeNodes(range: Range): NodeRef[] {
  const out: NodeRef[] = [];
  let start = range.start;
  while (start < range.end) {
    let size = 1;
    while (start % (size * 2) === 0 && start + size * 2 <= range.end) size *= 2;
    const level = Math.log2(size);
    out.push({ level, idx: start / size });
    start += size;
  }
  return out;
}

/** MTH of a range from its stored nodes (right to left, RFC 9162's recursion). */
export function rangeHash(range: Range, nodes: ReadonlyMap<string, Uint8Array>): Uint8Array {
  const parts = rangeNodes(range).map((r) => {
    const hash = nodes.get(nodeKey(r.level, r.idx));
    if (!hash) throw new Error(`log node ${nodeKey(r.level, r.idx)} is missing`);
    return hash;
  });
  if (parts.length === 0) return emptyRoot();
  let hash = parts[parts.length - 1]!;
  for (let i = parts.length - 2; i >= 0; i--) hash = nodeHash(parts[i]!, hash);
  return hash;
}

/** The complete subtrees of a tree of `size` leaves: what an append builds on. */
export function frontier(size: number): NodeRef[] {
  return rangeNodes({ start: 0, end: size });
}

/**
 * Appends leaves to a tree of `size` whose frontier nodes are in `nodes` (which this
 * extends): returns every new node (the leaves and each subtree they complete) and the
 * new root.
 */
export function appendLeaves(
  size: number,
  leaves: readonly Uint8Array[],
  nodes: Map<string, Uint8Array>,
): { added: (NodeRef & { hash: Uint8Array })[]; root: Uint8Array } {
  const added: (NodeRef & { hash: Uint8Array })[] = [];
  for (const [i, leaf] of leaves.entries()) {
    const index = size + i;
    nodes.set(nodeKey(0, index), leaf);
    added.push({ level: 0, idx: index, hash: leaf });
    let level = 0;
    let idx = index;
    // A node with an odd index completes its parent with its left sibling.
    while (idx % 2 === 1) {
      const left = nodes.get(nodeKey(level, idx - 1));
      const right = nodes.get(nodeKey(level, idx));
      if (!left || !right) throw new Error(`log node ${nodeKey(level, idx - 1)} is missing`);
      const hash = nodeHash(left, right);
      level += 1;
      idx = (idx - 1) / 2;
      nodes.set(nodeKey(level, idx), hash);
      added.push({ level, idx, hash });
    }
  }
  const newSize = size + leaves.length;
  return { added, root: rangeHash({ start: 0, end: newSize }, nodes) };
}
