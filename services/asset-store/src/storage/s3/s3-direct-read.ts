import net from 'node:net';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { ByteRange, DownloadResponse } from '../blob-store.js';
import { CONNECT_TIMEOUT_MS } from './s3-client.js';
import { SpanBody } from './span-body.js';

/** Spans of at least this many bytes are read directly (bench/NOTES.md, "the direct read"). */
const DIRECT_READ_MIN_BYTES = 8 << 20;
/** How long the signed URL stays good: it is used at once, once. */
const URL_SECONDS = 300;
const HEAD_LIMIT = 64 << 10;

/**
 * A presigned GET of the object that a client follows itself, S3 answering with the
 * download's type and disposition (signed into the URL, so the client cannot change them).
 * Signing is local: no request to S3.
 */
export function presignDownload(
  client: S3Client,
  bucket: string,
  key: string,
  response: DownloadResponse,
  seconds: number,
): Promise<string> {
  const get = new GetObjectCommand({
    Bucket: bucket,
    Key: key,
    ResponseContentType: response.contentType,
    ResponseContentDisposition: response.contentDisposition,
  });
  return getSignedUrl(client, get, { expiresIn: seconds });
}

/**
 * GETs one span of an object from a plain-HTTP endpoint over its own connection, the socket
 * reading into buffers of our own (`SpanBody`). Hand-written because Node's HTTP client
 * allocates every 64 KiB socket read and copies it again in its parser: relaying 1 GiB cost
 * the service about three times the CPU this does (NOTES).
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
  /** The body's bound on S3's silence (`s3_timeout_seconds`). */
  idleMs: number,
): Promise<SpanBody | undefined> {
  if (!range || range.end - range.start + 1 < DIRECT_READ_MIN_BYTES) return undefined;
  const url = new URL(
    await getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: key }), {
      expiresIn: URL_SECONDS,
    }),
  );
  if (url.protocol !== 'http:') return undefined;
  const length = range.end - range.start + 1;
  return new Promise((resolve) => {
    let head: Buffer | undefined = Buffer.alloc(0);
    const headBuffer = Buffer.allocUnsafe(HEAD_LIMIT);
    let body: SpanBody | undefined;
    const giveUp = (): void => {
      socket.destroy();
      resolve(undefined);
    };
    const socket: net.Socket = net.connect({
      host: url.hostname,
      port: Number(url.port) || 80,
      onread: {
        buffer: () => body?.nextBuffer() ?? headBuffer,
        callback: (n: number, buf: Uint8Array): boolean => {
          const chunk = (buf as Buffer).subarray(0, n);
          if (body) return body.received(chunk, buf as Buffer);
          head = Buffer.concat([head!, chunk]);
          const end = head.indexOf('\r\n\r\n');
          if (end < 0) {
            if (head.length > HEAD_LIMIT) giveUp();
            return true;
          }
          if (!isWholeSpan(head.toString('latin1', 0, end), range, length)) {
            giveUp();
            return false;
          }
          socket.setTimeout(0);
          socket.removeListener('timeout', giveUp);
          body = new SpanBody(socket, length, idleMs);
          resolve(body);
          const rest = head.subarray(end + 4);
          head = undefined;
          return body.received(rest, rest);
        },
      },
    });
    socket.setTimeout(CONNECT_TIMEOUT_MS, giveUp);
    socket.on('error', (err) => (body ? body.socketClosed(err) : giveUp()));
    socket.on('close', () => (body ? body.socketClosed() : resolve(undefined)));
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
