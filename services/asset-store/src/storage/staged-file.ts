import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createAssetHash } from '../assets/content-hash.js';

/** Enough leading bytes for file-type to recognise any format it knows. */
const HEAD_BYTES = 4100;

/** A complete upload under `.tmp/`, not yet fsynced nor an asset. */
export interface StagedFile {
  tmpPath: string;
  timestamp: number;
  hash: string;
  size: number;
  /** The first bytes, for magic-byte MIME detection without reading the file again. */
  head: Buffer;
}

/** What to do when the content passes a size limit. */
export interface SizeLimit {
  maxBytes: number;
  error: () => Error;
}

/**
 * Streams content to a fresh file under `tmpDir`, hashing as it goes (the hash is fed the
 * timestamp first), never holding more than one chunk (plus the source's own buffer) in
 * memory. The caller fsyncs once the attributes are on the file too. On any failure, the
 * source erroring or the limit being passed included, the partial file is removed and the
 * error rethrown; a stream source is destroyed.
 *
 * A plain loop rather than stream.pipeline: for small uploads the pipeline's machinery
 * cost more CPU than the write itself.
 */
export async function stageStream(
  tmpDir: string,
  timestamp: number,
  source: AsyncIterable<Buffer> | Iterable<Buffer>,
  limit?: SizeLimit,
): Promise<StagedFile> {
  const tmpPath = path.join(tmpDir, `${timestamp}-${randomBytes(6).toString('hex')}.part`);
  const hash = createAssetHash(timestamp);
  let head = Buffer.alloc(0);
  let size = 0;
  const handle = await fs.open(tmpPath, 'wx');
  let abandoned = false;
  const abandon = async (): Promise<void> => {
    if (abandoned) return;
    abandoned = true;
    await handle.close();
    await discardFile(tmpPath);
  };
  try {
    for await (const chunk of source) {
      try {
        size += chunk.length;
        if (limit && size > limit.maxBytes) throw limit.error();
        hash.update(chunk);
        if (head.length < HEAD_BYTES) {
          head = Buffer.concat([head, chunk.subarray(0, HEAD_BYTES - head.length)]);
        }
        await writeAll(handle, chunk);
      } catch (err) {
        // Whoever listens on the stream (multer) answers the request as soon as it errors,
        // so the partial file goes first. Then the stream is destroyed with the real
        // reason: leaving the loop would destroy it with a bare AbortError.
        await abandon();
        if (source instanceof Readable) source.destroy(err as Error);
        throw err;
      }
    }
  } catch (err) {
    await abandon();
    throw err;
  }
  await handle.close();
  return { tmpPath, timestamp, hash: hash.digest('hex'), size, head };
}

/** One write may be short; keep going until the whole chunk is on its way to the disk. */
async function writeAll(handle: fs.FileHandle, chunk: Buffer): Promise<void> {
  let offset = 0;
  while (offset < chunk.length) {
    const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset);
    offset += bytesWritten;
  }
}

/** Stages an in-memory content (data ingest) the same way. */
export async function stageBuffer(
  tmpDir: string,
  timestamp: number,
  content: Buffer,
): Promise<StagedFile> {
  return stageStream(tmpDir, timestamp, [content]);
}

/** fsync on a file: its content, size and attributes reach the disk. */
export async function fsyncFile(file: string): Promise<void> {
  const handle = await fs.open(file, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** fsync on a folder: makes a rename or unlink in it durable (a no-op where unsupported). */
export async function fsyncDirectory(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // Windows cannot open or fsync folders; the rename is as durable as it gets there.
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL') throw err;
  } finally {
    await handle?.close();
  }
}

/** Removes a file if it is there (a plain unlink: `fs.rm` costs extra syscalls). */
export async function discardFile(file: string): Promise<void> {
  try {
    await fs.unlink(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
