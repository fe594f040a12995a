import type { IncomingMessage } from 'node:http';
import { decodeJsonUtf8, readBodyBytes, readBodyText } from '@svc/envelope';
import { relayErrors } from '../errors.js';

/** A JSON body as parsed, with the text it was parsed from (byte order mark dropped). */
export interface JsonBody {
  value: unknown;
  text: string;
}

/**
 * A request body's bytes (any content type), read before the route's checks so a route
 * can parse them as JSON at the point its order of checks says; `undefined` without a body.
 */
export function readBytes(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return readBodyBytes(req, { limit });
}

/** Parses a raw body as JSON: `undefined` when empty, 400 when malformed or not UTF-8. */
export function parseJsonBody(body: Buffer | undefined): unknown {
  if (body === undefined || body.length === 0) return undefined;
  const text = decodeJsonUtf8(body);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw relayErrors.malformedJson();
  }
}

/** JSON whitespace, as the JSON grammar (and body-parser's strict mode) defines it. */
const LEADING_JSON_SPACE = /^[ \t\n\r]*/;

/**
 * `express.json({ strict: true })`'s reading of a body's text: an empty body is `{}`, a
 * byte order mark is dropped, and anything but an object or array is malformed (400). The
 * text parsed comes back with the value.
 */
export function parseStrictJson(received: string): JsonBody {
  const text = received.charCodeAt(0) === 0xfeff ? received.slice(1) : received;
  if (text.length === 0) return { value: {}, text };
  const first = text[LEADING_JSON_SPACE.exec(text)?.[0].length ?? 0];
  if (first !== '{' && first !== '[') throw relayErrors.malformedJson();
  try {
    return { value: JSON.parse(text) as unknown, text };
  } catch {
    throw relayErrors.malformedJson();
  }
}

/**
 * A body read as `express.json` reads it (any content type; inflated; decoded from its UTF
 * charset): `undefined` when the request has no body at all, 413 past `limit`, 415 for an
 * encoding or charset it cannot read, 400 when malformed or when the client goes away.
 */
export async function readStrictJsonBody(
  req: IncomingMessage,
  limit: number,
): Promise<JsonBody | undefined> {
  const text = await readBodyText(req, { limit });
  return text === undefined ? undefined : parseStrictJson(text);
}
