import { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import zlib from 'node:zlib';
import contentType from 'content-type';
import getRawBody from 'raw-body';
import { AppError, errors } from './errors.js';
import { decodeJsonUtf8 } from './utf8.js';

/** How a body is read. */
export interface ReadBodyOptions {
  /** Largest body accepted, in bytes after inflating; past it: 413. */
  limit: number;
}

/** Whether the request carries a body at all (type-is's `hasBody`, as body-parser asks). */
export function hasBody(req: IncomingMessage): boolean {
  return (
    req.headers['transfer-encoding'] !== undefined ||
    !Number.isNaN(Number(req.headers['content-length']))
  );
}

/**
 * Maps what reading a body can throw (raw-body's errors, body-parser's, a broken gzip
 * stream) onto the shared catalogue; `undefined` for anything else.
 */
export function bodyError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  switch ((err as { type?: unknown } | null)?.type) {
    case 'entity.parse.failed':
      return errors.malformedJson();
    case 'entity.too.large':
      return errors.bodyTooLarge();
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return errors.unsupportedBodyEncoding();
    case 'request.aborted':
      return errors.requestAborted();
    default:
      return undefined;
  }
}

/** The body stream after undoing its `Content-Encoding`, as body-parser inflates it. */
function inflated(req: IncomingMessage): IncomingMessage | Transform {
  switch ((req.headers['content-encoding'] ?? 'identity').toLowerCase()) {
    case 'identity':
      return req;
    case 'deflate':
      return req.pipe(zlib.createInflate());
    case 'gzip':
      return req.pipe(zlib.createGunzip());
    case 'br':
      return req.pipe(zlib.createBrotliDecompress());
    default:
      throw errors.unsupportedBodyEncoding();
  }
}

/** The rest of a body nobody reads, taken off the socket so the connection stays usable. */
function drain(req: IncomingMessage): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    req.once('end', resolve);
    req.once('close', resolve);
    req.resume();
  });
}

async function read(
  req: IncomingMessage,
  limit: number,
  encoding: string | null,
): Promise<Buffer | string> {
  const stream = inflated(req);
  const length = stream === req ? req.headers['content-length'] : undefined;
  const detach = () => {
    if (stream instanceof IncomingMessage) return;
    req.unpipe(stream);
    stream.destroy();
  };
  try {
    const body = await getRawBody(stream, { length, limit, encoding });
    detach();
    return body;
  } catch (err) {
    detach();
    await drain(req);
    // A stream that broke mid-way (bad gzip data) is the client's doing: 400, as body-parser.
    const known = bodyError(err);
    if (known) throw known;
    const message = (err as { message?: unknown } | null)?.message;
    throw errors.badRequest(typeof message === 'string' ? message : String(err));
  }
}

/**
 * A request body's bytes, inflated, as `express.raw` reads them: `undefined` when the
 * request has no body, 413 past the limit (the rest is read off first), 400 when the client
 * goes away, 415 for a `Content-Encoding` it cannot undo.
 */
export async function readBodyBytes(
  req: IncomingMessage,
  options: ReadBodyOptions,
): Promise<Buffer | undefined> {
  if (!hasBody(req)) return undefined;
  return (await read(req, options.limit, null)) as Buffer;
}

/** The charset `Content-Type` names (lowercase), `undefined` when none or unparsable. */
function charsetOf(req: IncomingMessage): string | undefined {
  const type = req.headers['content-type'];
  // Most bodies name no charset: skip the parse for them.
  if (type === undefined || !/charset/i.test(type)) return undefined;
  try {
    return contentType.parse(type).parameters.charset?.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * A request body as JSON text, as `express.json` reads it before parsing: decoded from the
 * `Content-Type` charset (UTF-8 when none; any other than a UTF one is 415, as JSON allows
 * only those), byte order mark dropped; `undefined` when the request has no body; 400
 * naming the field when UTF-8 bytes are invalid. The same limits and failures as
 * `readBodyBytes`.
 */
export async function readBodyText(
  req: IncomingMessage,
  options: ReadBodyOptions,
): Promise<string | undefined> {
  if (!hasBody(req)) return undefined;
  const charset = charsetOf(req) ?? 'utf-8';
  if (!charset.startsWith('utf-')) {
    await drain(req);
    throw errors.unsupportedBodyEncoding();
  }
  if (charset !== 'utf-8') return (await read(req, options.limit, charset)) as string;
  // UTF-8, the common case: byte order mark dropped (as iconv-lite), bytes that are not
  // UTF-8 refused rather than turned into U+FFFD.
  return decodeJsonUtf8((await read(req, options.limit, null)) as Buffer);
}
