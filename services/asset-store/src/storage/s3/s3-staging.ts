import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { StagedBlob } from '../blob-store.js';
import { offThreadDigest } from '../content-digest.js';
import { createAssetHash } from '../content-hash.js';
import type { S3Leftovers } from './s3-leftovers.js';
import { uploadMultipart } from './s3-multipart.js';
import type { SizeLimit } from '../staged-file.js';

/** Enough leading bytes for file-type to recognise any format it knows. */
const HEAD_BYTES = 4100;

/**
 * Multipart part size and parts in flight: an upload holds at most about
 * PART_BYTES × (QUEUE + 1) in memory, whatever its length. 5 MiB is S3's smallest part;
 * with two in flight a 1 GiB ingest fell to about 0.7x of lib-storage's four (NOTES).
 */
const PART_BYTES = 5 << 20;
const QUEUE = 3;

/**
 * Destroys a source with the reason the stage failed. The rejection carries that error too,
 * so a source nobody listens to must not turn it into an uncaught 'error' event.
 */
function destroyWith(source: Readable, err: Error): void {
  if (source.listenerCount('error') === 0) source.once('error', () => undefined);
  source.destroy(err);
}

/** One async iterator over either kind of source, read a step at a time. */
function iteratorOf(chunks: AsyncIterable<Buffer> | Iterable<Buffer>): AsyncIterator<Buffer> {
  if (Symbol.asyncIterator in chunks) return chunks[Symbol.asyncIterator]();
  const sync = chunks[Symbol.iterator]();
  return { next: () => Promise.resolve(sync.next()) };
}

/**
 * `S3BlobStore.stage`: hashes `source` as it reads it. A content that ends within one part
 * stays in memory (`bytes`): `place` writes it with one `PutObject`, and nothing reaches the
 * bucket before. A longer one streams to the object `ref` (a multipart upload with reused
 * part buffers: bounded memory). On any failure the upload is aborted and the object
 * removed before a stream source is destroyed with the reason, and the reason is rethrown.
 */
export async function stageUpload(
  target: { client: S3Client; bucket: string; ref: string; leftovers: S3Leftovers },
  timestamp: number,
  source: AsyncIterable<Buffer> | Iterable<Buffer>,
  limit?: SizeLimit,
): Promise<StagedBlob> {
  const { ref } = target;
  const hash = createAssetHash(timestamp);
  let head = Buffer.alloc(0);
  let size = 0;
  const take = (chunk: Buffer): void => {
    size += chunk.length;
    if (limit && size > limit.maxBytes) throw limit.error();
    hash.update(chunk);
    if (head.length < HEAD_BYTES) {
      head = Buffer.concat([head, chunk.subarray(0, HEAD_BYTES - head.length)]);
    }
  };
  const staged = (sha256: string, bytes?: Buffer): StagedBlob => ({
    ref,
    timestamp,
    hash: hash.digest('hex'),
    sha256,
    size,
    head,
    ...(bytes ? { bytes } : {}),
  });
  // Leaving the loop must not destroy a stream source: its listener (multer) answers as
  // soon as it is destroyed, so that waits until the upload is aborted, and then carries
  // the real reason rather than a bare AbortError.
  const chunks = source instanceof Readable ? source.iterator({ destroyOnReturn: false }) : source;
  const iterator = iteratorOf(chunks as AsyncIterable<Buffer> | Iterable<Buffer>);
  // A content up to one part: a multipart upload would hold it whole for one part anyway.
  const held: Buffer[] = [];
  try {
    while (size <= PART_BYTES) {
      const next = await iterator.next();
      if (next.done) {
        const bytes = Buffer.concat(held);
        return staged(createHash('sha256').update(bytes).digest('hex'), bytes);
      }
      take(next.value);
      held.push(next.value);
    }
  } catch (err) {
    await iterator.return?.();
    if (source instanceof Readable) destroyWith(source, err as Error);
    throw err;
  }
  // Every chunk is hashed as the upload takes it, the held ones first. The plain SHA-256
  // runs on the worker thread, as the file system's staging does, beside the asset hash here:
  // it reads each part where the upload keeps it, so no byte is copied for it.
  const contentHash = offThreadDigest();
  async function* body(): AsyncIterable<Buffer> {
    yield* held.splice(0);
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      take(next.value);
      yield next.value;
    }
  }
  const { client, bucket } = target;
  try {
    await uploadMultipart(
      {
        client,
        bucket,
        key: ref,
        partBytes: PART_BYTES,
        queue: QUEUE,
        onPart: (part) => contentHash.updateShared(part),
      },
      body(),
    );
  } catch (err) {
    // The upload is aborted here, and again later while S3 is unreachable: nothing may
    // stay, now or once S3 is back.
    await target.leftovers.removeStaged(ref);
    // Only now: the upload is aborted and nothing is left when the listener answers.
    if (source instanceof Readable) destroyWith(source, err as Error);
    contentHash.drop();
    throw err;
  }
  let sha256: string;
  try {
    sha256 = await contentHash.digest();
  } catch (err) {
    await target.leftovers.removeStaged(ref);
    throw err;
  }
  return staged(sha256);
}
