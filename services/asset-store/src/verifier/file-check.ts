import fs from 'node:fs/promises';
import { hashFile } from '../storage/content-hash.js';

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
): Promise<FileState> {
  signal?.throwIfAborted();
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) return 'missing';
    return (await hashFile(file, timestamp, signal)) === expectedHash ? 'ok' : 'mismatch';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
    throw err;
  }
}
