import { errors, readBodyText } from '@svc/envelope';
import type { RequestHandler } from 'express';
import { parse as parseLossless } from 'lossless-json';
import { assetErrors } from '../errors.js';

/** A duplicate key keeps its last value, as `JSON.parse` does. */
const lastWins = { onDuplicateKey: ({ newValue }: { newValue: unknown }) => newValue };

/**
 * The JSON body as `express.json({ strict: false })` reads it (any content type, any JSON
 * value, `{}` when empty, 400 when malformed), except that bytes which are not UTF-8 are
 * refused naming their field. With `lossless`, numbers stay `LosslessNumber`s holding their
 * digits as written, for bodies stored as sent (`1e400` is not `null`, nor
 * `12345678901234567890` `12345678901234567000`).
 */
export function jsonBody(limit: number, { lossless = false } = {}): RequestHandler {
  return async (req, _res, next) => {
    const text = await readBodyText(req, { limit });
    if (text !== undefined) req.body = parseJson(text, lossless);
    next();
  };
}

function parseJson(text: string, lossless: boolean): unknown {
  if (text.length === 0) return {};
  try {
    return lossless ? parseLossless(text, null, lastWins) : (JSON.parse(text) as unknown);
  } catch (err) {
    // The lossless parser recurses: nesting past the stack is the client's input.
    if (err instanceof RangeError) throw assetErrors.unstorableData();
    throw errors.malformedJson();
  }
}
