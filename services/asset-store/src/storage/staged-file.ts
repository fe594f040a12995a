import { createHash, randomBytes, type Hash } from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { offThreadDigest, type ContentDigest } from './content-digest.js';
import { createAssetHash } from './content-hash.js';
import { streamChunks } from './stream-chunks.js';

/** A plain file descriptor (no FileHandle), so the quick steps after it can be synchronous. */
const openFile = promisify(fsSync.open);

/**
 * Staged names are `<this>-<count>.part`: this tag, drawn once, tells processes apart and
 * the count uploads within one. Random bytes per upload cost a few microseconds of every
 * small ingest for nothing more.
 */
const PROCESS_TAG = randomBytes(6).toString('hex');
let stagedCount = 0;

/**
 * An asset timestamp, or the promise of one the issuer has yet to answer. Staging starts
 * without it (only the asset hash needs it), so a small upload's file is created while
 * the timestamp's round trip to the index is out.
 */
export type PendingTimestamp = number | Promise<number>;

/** Enough leading bytes for file-type to recognise any format it knows. */
const HEAD_BYTES = 4100;

/** A complete upload under `.tmp/`, not yet fsynced nor an asset. */
export interface StagedFile {
  tmpPath: string;
  timestamp: number;
  hash: string;
  /** The plain SHA-256 of the content (no timestamp), lowercase hex: `content_sha256`. */
  sha256: string;
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
 * Uploads up to this size are gathered (the source hands them over in a chunk or two) and
 * written in one go: a thread-pool round trip costs more CPU than the small write itself.
 */
const SMALL_UPLOAD_BYTES = 64 << 10;

/**
 * A larger upload's chunks are written in batches of this many bytes (or chunks, whichever
 * comes first; an iovec list has its limits), one `writev` each.
 */
const WRITE_BATCH_BYTES = 1 << 20;
const WRITE_BATCH_CHUNKS = 256;

/**
 * Streams content to a fresh file under `tmpDir`, hashing as it goes (the asset hash is fed
 * the timestamp first, the plain content SHA-256 only the content), never
 * holding more than 64 KiB of it (plus the source's own buffer) in memory. The caller
 * fsyncs once the attributes are on the file too. On any failure, the source erroring or
 * the limit being passed included, the partial file is removed and the error rethrown; a
 * stream source is destroyed.
 *
 * A plain loop rather than stream.pipeline: for small uploads the pipeline's machinery
 * cost more CPU than the write itself.
 */
export async function stageStream(
  tmpDir: string,
  pending: PendingTimestamp,
  source: AsyncIterable<Buffer> | Iterable<Buffer>,
  limit?: SizeLimit,
): Promise<StagedFile> {
  const issued = Promise.resolve(pending);
  // Staging may fail before it needs the timestamp; a rejection then goes unheard here.
  issued.catch(() => undefined);
  const tmpPath = path.join(tmpDir, `${PROCESS_TAG}-${++stagedCount}.part`);
  // Made once the timestamp is known: at the switch to a file, or at the end.
  let hash: Hash | undefined;
  // Fed in the same pass: the content is never read a second time. A small upload's is
  // taken from `gathered` at the end; a larger one's runs on the worker thread meanwhile.
  let contentHash: ContentDigest | undefined;
  let head = Buffer.alloc(0);
  let size = 0;
  // Until the content outgrows SMALL_UPLOAD_BYTES it stays here and no file exists yet.
  let gathered: Buffer[] = [];
  let handle: fs.FileHandle | undefined;
  // Chunks not yet written: socket-sized chunks go to the disk a batch at a time.
  let unwritten: Buffer[] = [];
  let unwrittenBytes = 0;
  let abandoned = false;
  const abandon = async (): Promise<void> => {
    if (abandoned || !handle) return;
    abandoned = true;
    contentHash?.drop();
    await handle.close();
    await discardFile(tmpPath);
  };
  try {
    for await (const chunk of streamChunks(source)) {
      try {
        size += chunk.length;
        if (limit && size > limit.maxBytes) throw limit.error();
        if (head.length < HEAD_BYTES) {
          head = Buffer.concat([head, chunk.subarray(0, HEAD_BYTES - head.length)]);
        }
        if (!handle && size <= SMALL_UPLOAD_BYTES) {
          gathered.push(chunk);
          continue;
        }
        if (!handle) {
          hash = createAssetHash(await issued);
          for (const earlier of gathered) hash.update(earlier);
          handle = await fs.open(tmpPath, 'wx');
          contentHash = offThreadDigest();
          for (const earlier of gathered) await contentHash.update(earlier);
          unwritten = gathered;
          unwrittenBytes = size - chunk.length;
          gathered = [];
        }
        hash!.update(chunk);
        await contentHash!.update(chunk);
        unwritten.push(chunk);
        unwrittenBytes += chunk.length;
        if (unwrittenBytes >= WRITE_BATCH_BYTES || unwritten.length >= WRITE_BATCH_CHUNKS) {
          await writeAll(handle, unwritten);
          unwritten = [];
          unwrittenBytes = 0;
        }
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
  let sha256: string;
  if (handle) {
    try {
      await writeAll(handle, unwritten);
    } catch (err) {
      await abandon();
      throw err;
    }
    await handle.close();
    sha256 = await contentHash!.digest().catch(async (err: unknown) => {
      await discardFile(tmpPath);
      throw err;
    });
  } else {
    const [written, timestamp] = await Promise.allSettled([
      writeSmallFile(tmpPath, gathered),
      issued,
    ]);
    if (timestamp.status === 'rejected') {
      if (written.status === 'fulfilled') await discardFile(tmpPath);
      throw timestamp.reason;
    }
    if (written.status === 'rejected') throw written.reason;
    hash = createAssetHash(timestamp.value);
    const small = createHash('sha256');
    for (const chunk of gathered) {
      hash.update(chunk);
      small.update(chunk);
    }
    sha256 = small.digest('hex');
  }
  return {
    tmpPath,
    timestamp: await issued,
    // Made at the switch to a file, or just above for a small upload.
    hash: hash!.digest('hex'),
    sha256,
    size,
    head,
  };
}

/**
 * Creates `file` holding `chunks`. Creating a file can be slow (inode allocation, the
 * journal), so that goes to the thread pool; the page-cache copy of at most
 * SMALL_UPLOAD_BYTES and the close take microseconds, less than a round trip there.
 * A failure leaves no file.
 */
async function writeSmallFile(file: string, chunks: Buffer[]): Promise<void> {
  const fd = await openFile(file, 'wx');
  try {
    for (const chunk of chunks) {
      for (let offset = 0; offset < chunk.length;) {
        offset += fsSync.writeSync(fd, chunk, offset, chunk.length - offset);
      }
    }
  } catch (err) {
    fsSync.closeSync(fd);
    fsSync.rmSync(file, { force: true });
    throw err;
  }
  fsSync.closeSync(fd);
}

/** One write may be short; keep going until every chunk is on its way to the disk. */
async function writeAll(handle: fs.FileHandle, chunks: Buffer[]): Promise<void> {
  let rest = chunks;
  while (rest.length > 0) {
    let { bytesWritten } = await handle.writev(rest);
    while (rest.length > 0 && bytesWritten >= rest[0]!.length) bytesWritten -= rest.shift()!.length;
    if (bytesWritten > 0) rest = [rest[0]!.subarray(bytesWritten), ...rest.slice(1)];
  }
}

/** Stages an in-memory content (data ingest) the same way. */
export async function stageBuffer(
  tmpDir: string,
  timestamp: PendingTimestamp,
  content: Buffer,
): Promise<StagedFile> {
  return stageStream(tmpDir, timestamp, [content]);
}

/** Removes a file if it is there (a plain unlink: `fs.rm` costs extra syscalls). */
export async function discardFile(file: string): Promise<void> {
  try {
    await fs.unlink(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
