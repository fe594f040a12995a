import net from 'node:net';
import { Readable } from 'node:stream';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { ByteRange } from './blob-store.js';
import { CONNECT_TIMEOUT_MS } from './s3-client.js';

/** Spans of at least this many bytes are read directly (bench/NOTES.md, "the direct read"). */
const DIRECT_READ_MIN_BYTES = 8 << 20;
/** The socket reads into slabs of this size; a chunk handed on is a view of one. */
const SLAB_BYTES = 1 << 20;
/** A slab with less room than this left is replaced before the next read. */
const MIN_READ_BYTES = 64 << 10;
/** How long the signed URL stays good: it is used at once, once. */
const URL_SECONDS = 300;
const HEAD_LIMIT = 64 << 10;

/**
 * GETs one span of an object from a plain-HTTP endpoint over its own connection, the socket
 * reading straight into 1 MiB slabs that the stream's chunks are cut from. Hand-written
 * because Node's HTTP client allocates every 64 KiB socket read and copies it again in its
 * parser: relaying 1 GiB cost the service about three times the CPU this does (NOTES).
 * Resolves undefined, having sent nothing on, for a span under 8 MiB (or none), an endpoint
 * that is not `http:`, one that cannot be reached or answers anything but the span with its
 * length: the caller then asks through the SDK, whose retries and errors are the store's.
 * A failure mid-body errors the stream.
 */
export async function readSpanDirect(
  client: S3Client,
  bucket: string,
  key: string,
  range: ByteRange | undefined,
): Promise<Readable | undefined> {
  if (!range || range.end - range.start + 1 < DIRECT_READ_MIN_BYTES) return undefined;
  const url = new URL(
    await getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: key }), {
      expiresIn: URL_SECONDS,
    }),
  );
  if (url.protocol !== 'http:') return undefined;
  const length = range.end - range.start + 1;
  return new Promise((resolve) => {
    let slab = Buffer.allocUnsafe(SLAB_BYTES);
    let used = 0;
    let head: Buffer | undefined = Buffer.alloc(0);
    let remaining = length;
    let body: Readable | undefined;
    const giveUp = (): void => {
      socket.destroy();
      resolve(undefined);
    };
    const socket = net.connect({
      host: url.hostname,
      port: Number(url.port) || 80,
      onread: {
        buffer: () => {
          if (SLAB_BYTES - used < MIN_READ_BYTES) {
            slab = Buffer.allocUnsafe(SLAB_BYTES);
            used = 0;
          }
          return slab.subarray(used);
        },
        callback: (n: number, buf: Uint8Array) => {
          let chunk = (buf as Buffer).subarray(0, n);
          used += n;
          if (head) {
            head = Buffer.concat([head, chunk]);
            const end = head.indexOf('\r\n\r\n');
            if (end < 0) {
              if (head.length > HEAD_LIMIT) giveUp();
              return true;
            }
            if (!isWholeSpan(head.toString('latin1', 0, end), range, length)) {
              giveUp();
              return false;
            }
            chunk = head.subarray(end + 4);
            head = undefined;
            socket.setTimeout(0);
            body = new Readable({
              highWaterMark: SLAB_BYTES,
              read: () => socket.resume(),
              destroy: (err, done) => {
                socket.destroy();
                done(err);
              },
            });
            resolve(body);
          }
          return handOn(chunk);
        },
      },
    });
    const handOn = (chunk: Buffer): boolean => {
      const part = chunk.length > remaining ? chunk.subarray(0, remaining) : chunk;
      remaining -= part.length;
      const more = part.length === 0 || body!.push(part);
      if (remaining > 0) return more;
      body!.push(null);
      socket.destroy();
      return false;
    };
    socket.setTimeout(CONNECT_TIMEOUT_MS, giveUp);
    socket.on('error', (err) => (body ? body.destroy(err) : giveUp()));
    socket.on('close', () => {
      if (!body) return resolve(undefined);
      if (remaining > 0 && !body.destroyed) {
        body.destroy(
          Object.assign(new Error('S3 closed the connection mid-object'), {
            code: 'ECONNRESET',
          }),
        );
      }
    });
    const target = `${url.pathname}${url.search}`;
    socket.write(
      `GET ${target} HTTP/1.1\r\nHost: ${url.host}\r\n` +
        `Range: bytes=${range.start}-${range.end}\r\nConnection: close\r\n\r\n`,
    );
  });
}

/** True for a 206 of exactly `range` (or a 200 of exactly its length) with no transfer coding. */
function isWholeSpan(head: string, range: ByteRange, length: number): boolean {
  const [statusLine = '', ...lines] = head.split('\r\n');
  const status = statusLine.split(' ')[1];
  const fields = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0)
      fields.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  if (fields.has('transfer-encoding') || fields.get('content-length') !== String(length)) {
    return false;
  }
  if (status === '200') return range.start === 0;
  return (
    status === '206' &&
    (fields.get('content-range') ?? '').startsWith(`bytes ${range.start}-${range.end}/`)
  );
}
