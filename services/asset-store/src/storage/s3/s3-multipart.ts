import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  UploadPartCommand,
  type CompletedPart,
  type S3Client,
} from '@aws-sdk/client-s3';

/** Where a multipart upload goes, and how it is cut. */
export interface MultipartTarget {
  client: S3Client;
  bucket: string;
  key: string;
  /** Bytes of every part but the last (S3: at least 5 MiB). */
  partBytes: number;
  /** Parts uploading at once. */
  queue: number;
  /**
   * Sees every part, in order, beside its upload (the content digest); a part buffer is
   * refilled only once both are done. The part buffers are then shared memory, so a worker
   * thread can read them in place instead of being sent a copy.
   */
  onPart?: (part: Buffer) => Promise<void>;
}

/**
 * Streams `chunks` to `key` as a multipart upload, copying them into a fixed set of
 * `queue + 1` part buffers that are reused from part to part. Why not lib-storage: its
 * chunker allocates a fresh part buffer per part and keeps the incoming chunks until the
 * part is full, so a 1 GiB upload leaves about 2 GiB of buffers for the garbage collector,
 * which V8 lets pile up to about 64 MB before collecting (bench/NOTES.md, "S3 multipart
 * part buffers"). Here a chunk is garbage as soon as it is copied. Memory: the part
 * buffers, whatever the length.
 *
 * On failure (of the source, or of S3 after the SDK's retries) it stops reading, waits for
 * the parts in flight and rethrows the first error; the upload is left for the caller to
 * abort (`S3Leftovers.removeStaged`), which also covers an abort S3 could not take then.
 */
export async function uploadMultipart(
  target: MultipartTarget,
  chunks: AsyncIterable<Buffer>,
): Promise<void> {
  const { client, bucket, key, partBytes, queue, onPart } = target;
  const newPart = (): Buffer =>
    onPart ? Buffer.from(new SharedArrayBuffer(partBytes)) : Buffer.allocUnsafe(partBytes);
  const created = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
  const uploadId = created.UploadId;
  if (!uploadId) throw new Error(`S3 gave no upload id for ${key}`);
  const free: Buffer[] = [];
  const inFlight = new Set<Promise<void>>();
  const parts: CompletedPart[] = [];
  let failure: unknown;
  let failed = false;

  const send = (partNumber: number, buffer: Buffer, length: number): void => {
    const body = buffer.subarray(0, length);
    const uploaded = client
      .send(
        new UploadPartCommand({
          Bucket: bucket,
          Key: key,
          UploadId: uploadId,
          PartNumber: partNumber,
          Body: body,
          ContentLength: length,
        }),
      )
      .then((answer) => {
        if (!answer.ETag) throw new Error(`S3 gave no ETag for part ${partNumber} of ${key}`);
        parts.push({ PartNumber: partNumber, ETag: answer.ETag });
      });
    const sent = Promise.all([uploaded, onPart?.(body)])
      .then(() => undefined)
      .catch((err: unknown) => {
        if (!failed) failure = err;
        failed = true;
      })
      // Only once S3 has answered (retries included) and `onPart` is done is the buffer
      // free to refill.
      .finally(() => {
        inFlight.delete(sent);
        free.push(buffer);
      });
    inFlight.add(sent);
  };
  const settleAll = () => Promise.all(inFlight);

  let partNumber = 1;
  let part: Buffer = newPart();
  let filled = 0;
  try {
    for await (const chunk of chunks) {
      let offset = 0;
      while (offset < chunk.length) {
        const copied = chunk.copy(part, filled, offset);
        offset += copied;
        filled += copied;
        if (filled < partBytes) continue;
        send(partNumber++, part, filled);
        while (inFlight.size >= queue && !failed) await Promise.race(inFlight);
        if (failed) break;
        part = free.pop() ?? newPart();
        filled = 0;
      }
      // S3 failed meanwhile: no more of the source is read.
      if (failed) break;
    }
  } catch (err) {
    // The source's failure (or the size limit) is the reason, whatever S3 said meanwhile,
    // but an AbortError: the source closed under us, which only says the request ended.
    // (By name: Node's own errors are of another realm under Jest.)
    if (!failed || (err as { name?: unknown } | null)?.name !== 'AbortError') failure = err;
    failed = true;
  }
  if (!failed && (filled > 0 || partNumber === 1)) send(partNumber, part, filled);
  await settleAll();
  if (failed) throw failure;
  parts.sort((a, b) => a.PartNumber! - b.PartNumber!);
  await client.send(
    new CompleteMultipartUploadCommand({
      Bucket: bucket,
      Key: key,
      UploadId: uploadId,
      MultipartUpload: { Parts: parts },
    }),
  );
}
