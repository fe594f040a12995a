import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
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
 * timestamp first), never holding more than one chunk in memory. The caller fsyncs once the
 * attributes are on the file too. On any failure, including the source erroring or the limit being passed, the partial
 * file is removed and the error rethrown.
 */
export async function stageStream(
  tmpDir: string,
  timestamp: number,
  source: Readable,
  limit?: SizeLimit,
): Promise<StagedFile> {
  const tmpPath = path.join(tmpDir, `${timestamp}-${randomBytes(6).toString('hex')}.part`);
  const hash = createAssetHash(timestamp);
  const headChunks: Buffer[] = [];
  let headLength = 0;
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (limit && size > limit.maxBytes) {
        done(limit.error());
        return;
      }
      hash.update(chunk);
      if (headLength < HEAD_BYTES) {
        headChunks.push(chunk.subarray(0, HEAD_BYTES - headLength));
        headLength += Math.min(chunk.length, HEAD_BYTES - headLength);
      }
      done(null, chunk);
    },
  });
  const handle = await fs.open(tmpPath, 'wx');
  try {
    await pipeline(source, meter, fileSink(handle));
  } catch (err) {
    await handle.close();
    await discardFile(tmpPath);
    throw err;
  }
  await handle.close();
  return { tmpPath, timestamp, hash: hash.digest('hex'), size, head: Buffer.concat(headChunks) };
}

/** Writes each chunk at the end of an open file, which the caller closes. */
function fileSink(handle: fs.FileHandle): Writable {
  return new Writable({
    highWaterMark: 1 << 20,
    write(chunk: Buffer, _encoding, done) {
      handle.write(chunk).then(() => done(), done);
    },
    writev(chunks, done) {
      handle.writev(chunks.map((c) => c.chunk as Buffer)).then(() => done(), done);
    },
  });
}

/** Stages an in-memory content (data ingest) the same way. */
export async function stageBuffer(
  tmpDir: string,
  timestamp: number,
  content: Buffer,
): Promise<StagedFile> {
  return stageStream(tmpDir, timestamp, Readable.from([content]));
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
