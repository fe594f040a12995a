import { createHash } from 'node:crypto';
import { addAbortSignal } from 'node:stream';
import type { BlobStore } from '../storage/blob-store.js';
import { createAssetHash } from '../storage/content-hash.js';

/** What a check of one stored file found. */
export type FileState = 'ok' | 'mismatch' | 'missing';

/**
 * Recomputes a stored blob's asset hash (streaming, through the blob store, on any backend)
 * and compares it with the expected one; when `withDigest`, the same read also gives the
 * content's plain SHA-256 (only when intact), for rows stored before digests were kept. Once
 * `signal` is aborted the read stops at its next chunk and this rejects.
 */
export async function checkBlob(
  blobs: Pick<BlobStore, 'read'>,
  name: string,
  timestamp: number,
  expectedHash: string,
  {
    withDigest = false,
    signal,
    onBytes,
  }: {
    withDigest?: boolean;
    signal?: AbortSignal;
    /** Told each chunk's size as it is hashed (a job's progress). */
    onBytes?: (bytes: number) => void;
  } = {},
): Promise<{ state: FileState; sha256?: string }> {
  signal?.throwIfAborted();
  const hash = createAssetHash(timestamp);
  const plain = withDigest ? createHash('sha256') : undefined;
  let stream;
  try {
    stream = await blobs.read(name);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
    throw err;
  }
  if (signal) addAbortSignal(signal, stream);
  for await (const chunk of stream) {
    hash.update(chunk as Buffer);
    plain?.update(chunk as Buffer);
    onBytes?.((chunk as Buffer).length);
  }
  if (hash.digest('hex') !== expectedHash) return { state: 'mismatch' };
  return plain ? { state: 'ok', sha256: plain.digest('hex') } : { state: 'ok' };
}
