import type { IncomingMessage } from 'node:http';
import express, { type Request, type RequestHandler } from 'express';
import iconv from 'iconv-lite';
import { relayErrors } from '../errors.js';

/** A JSON body as parsed, with the text it was parsed from (byte order mark dropped). */
export interface JsonBody {
  value: unknown;
  text: string;
}

/**
 * Keeps the body as raw bytes (any content type) so a route can parse it as JSON at the
 * point its order of checks says, instead of before the handle and auth checks.
 */
export function rawBody(limit: string | number): RequestHandler {
  return express.raw({ type: () => true, limit });
}

/** Parses a raw body as JSON: `undefined` when empty, 400 when malformed. */
export function parseJsonBody(body: unknown): unknown {
  if (!Buffer.isBuffer(body) || body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    throw relayErrors.badRequest('malformed JSON body');
  }
}

/** JSON whitespace, as the JSON grammar (and body-parser's strict mode) defines it. */
const LEADING_JSON_SPACE = /^[ \t\n\r]*/;

/**
 * `express.json({ strict: true })`'s reading of a body already in hand: an empty body is
 * `{}`, a UTF-8 byte order mark is dropped, and anything but an object or array is
 * malformed (400). The text parsed comes back with the value.
 */
export function parseStrictJson(bytes: Buffer): JsonBody {
  let text = bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.length === 0) return { value: {}, text };
  const first = text[LEADING_JSON_SPACE.exec(text)?.[0].length ?? 0];
  if (first !== '{' && first !== '[') throw relayErrors.badRequest('malformed JSON body');
  try {
    return { value: JSON.parse(text) as unknown, text };
  } catch {
    throw relayErrors.badRequest('malformed JSON body');
  }
}

/**
 * Reads a request body of at most `limit` bytes as `express.json` does: `undefined` when
 * the request has no body at all, 413 past the limit (declared or streamed; the rest is
 * read off first so the connection stays usable), 400 when the client goes away.
 */
export function readStrictJsonBody(
  req: IncomingMessage,
  limit: number,
): Promise<JsonBody | undefined> {
  const declared = req.headers['content-length'];
  if (req.headers['transfer-encoding'] === undefined && declared === undefined) {
    return Promise.resolve(undefined);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let tooLarge = declared !== undefined && Number(declared) > limit;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
    });
    req.once('end', () => {
      if (tooLarge) {
        reject(relayErrors.payloadTooLarge('request body too large'));
        return;
      }
      try {
        resolve(parseStrictJson(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
    req.once('close', () => {
      if (!req.complete) reject(relayErrors.badRequest('request aborted'));
    });
  });
}

/** The bytes `jsonKeepingText` read per request, with the charset they were decoded from. */
const receivedBodies = new WeakMap<IncomingMessage, { bytes: Buffer; charset: string }>();

/**
 * `express.json(options)` that also keeps the bytes it read (after inflating), so the route
 * can have the JSON text as well as the value (`jsonBodyOf`).
 */
export function jsonKeepingText(
  options: Omit<NonNullable<Parameters<typeof express.json>[0]>, 'verify'>,
): RequestHandler {
  return express.json({
    ...options,
    verify: (req, _res, bytes, charset) => {
      receivedBodies.set(req, { bytes, charset });
    },
  });
}

/**
 * The body `jsonKeepingText` parsed, its text decoded as body-parser decoded it for
 * `JSON.parse` (iconv-lite, byte order mark dropped); `undefined` when there was no body.
 */
export function jsonBodyOf(req: Request): JsonBody | undefined {
  const received = receivedBodies.get(req);
  if (!received) return undefined;
  return { value: req.body as unknown, text: iconv.decode(received.bytes, received.charset) };
}
