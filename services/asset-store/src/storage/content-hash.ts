import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';

/** A SHA-256 already fed the 8-byte big-endian timestamp; feed it the content next. */
export function createAssetHash(timestamp: number): Hash {
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64BE(BigInt(timestamp));
  return createHash('sha256').update(prefix);
}

/**
 * Streams a file through the asset hash; lowercase hex. An abort of `signal` ends the read
 * at the next chunk and rejects (an AbortError, or the signal's reason before the read).
 * `onBytes` hears each chunk's length, for live progress (jobs).
 */
export async function hashFile(
  file: string,
  timestamp: number,
  signal?: AbortSignal,
  onBytes?: (bytes: number) => void,
): Promise<string> {
  signal?.throwIfAborted();
  const hash = createAssetHash(timestamp);
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20, signal })) {
    hash.update(chunk as Buffer);
    onBytes?.((chunk as Buffer).length);
  }
  return hash.digest('hex');
}

/**
 * One read of a file for both digests: the asset hash (timestamp first) and the plain
 * content SHA-256, lowercase hex.
 */
export async function digestFile(
  file: string,
  timestamp: number,
  signal?: AbortSignal,
  onBytes?: (bytes: number) => void,
): Promise<{ hash: string; sha256: string }> {
  signal?.throwIfAborted();
  const hash = createAssetHash(timestamp);
  const plain = createHash('sha256');
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20, signal })) {
    hash.update(chunk as Buffer);
    plain.update(chunk as Buffer);
    onBytes?.((chunk as Buffer).length);
  }
  return { hash: hash.digest('hex'), sha256: plain.digest('hex') };
}

/** `digestFile` over a stream (a blob of any backend): asset hash and plain SHA-256. */
export async function digestStream(
  stream: AsyncIterable<unknown>,
  timestamp: number,
): Promise<{ hash: string; sha256: string }> {
  const hash = createAssetHash(timestamp);
  const plain = createHash('sha256');
  for await (const chunk of stream) {
    hash.update(chunk as Buffer);
    plain.update(chunk as Buffer);
  }
  return { hash: hash.digest('hex'), sha256: plain.digest('hex') };
}

/** Hash of an in-memory content, for small values and tests. */
export function hashBuffer(content: Buffer | string, timestamp: number): string {
  return createAssetHash(timestamp).update(content).digest('hex');
}

/** An asset hash as clients may spell it: 64 hexadecimal characters in either case. */
export const ASSET_HASH_PATTERN = /^[0-9a-fA-F]{64}$/;

/** True for 64 hexadecimal characters in either case. */
export function isAssetHash(value: string): boolean {
  return ASSET_HASH_PATTERN.test(value);
}
