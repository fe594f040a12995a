import fs from 'node:fs/promises';
import { digestFile, hashFile } from '../storage/content-hash.js';

/** What a check of one stored file found. */
export type FileState = 'ok' | 'mismatch' | 'missing';

/**
 * Recomputes a file's asset hash (streaming) and compares it with the expected one. Once
 * `signal` is aborted it rejects, without looking at the file if it had not begun.
 */
export async function checkFile(
  file: string,
  timestamp: number,
  expectedHash: string,
  signal?: AbortSignal,
  onBytes?: (bytes: number) => void,
): Promise<FileState> {
  signal?.throwIfAborted();
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) return 'missing';
    return (await hashFile(file, timestamp, signal, onBytes)) === expectedHash ? 'ok' : 'mismatch';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
    throw err;
  }
}

/**
 * `checkFile` that also gives the content's plain SHA-256 from the same read, for a row that
 * has none yet (files stored before digests were kept); `sha256` only when the file is intact.
 */
export async function checkFileWithDigest(
  file: string,
  timestamp: number,
  expectedHash: string,
  signal?: AbortSignal,
  onBytes?: (bytes: number) => void,
): Promise<{ state: FileState; sha256?: string }> {
  signal?.throwIfAborted();
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) return { state: 'missing' };
    const { hash, sha256 } = await digestFile(file, timestamp, signal, onBytes);
    return hash === expectedHash ? { state: 'ok', sha256 } : { state: 'mismatch' };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { state: 'missing' };
    throw err;
  }
}
