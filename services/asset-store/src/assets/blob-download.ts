import type { Request, Response } from 'express';
import parseRange from 'range-parser';
import { assetErrors } from '../errors.js';
import { relay } from '../storage/blob-store.js';
import type { LocatedAsset } from './asset.service.js';

/** What `send` takes for a byte range request: `bytes=` with any spaces before it. */
const BYTES_RANGE = /^ *bytes=/;

/**
 * Serves a blob that is no file here (an S3 object) straight from its stream, as `send`
 * serves a file: one satisfiable range → 206 with `Content-Range`, an unsatisfiable one →
 * 416, several ranges or a malformed header → the whole content; HEAD without a body.
 * Hand-written because `send` only serves paths; `range-parser` reads the header as
 * `send` does. Rejects while nothing was sent yet (`fail` clears the headers first).
 */
export async function streamBlob(
  req: Request,
  res: Response,
  asset: LocatedAsset,
  acceptRanges: boolean,
  fail: (err: Error) => Error,
): Promise<void> {
  const header = req.headers.range;
  let range: { start: number; end: number } | undefined;
  if (acceptRanges && header !== undefined && BYTES_RANGE.test(header)) {
    const ranges = parseRange(asset.size, header, { combine: true });
    if (ranges === -1) throw fail(assetErrors.rangeNotSatisfiable(asset.size));
    if (ranges !== -2 && ranges.length === 1) range = ranges[0];
  }
  if (range) {
    res.status(206);
    res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${asset.size}`);
  }
  res.setHeader('Content-Length', String(range ? range.end - range.start + 1 : asset.size));
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  let body;
  try {
    // An empty blob has no byte to ask for: S3 refuses a range on it.
    body = asset.size === 0 ? undefined : await asset.open(range);
  } catch (err) {
    throw fail(err as Error);
  }
  if (!body) {
    res.end();
    return;
  }
  // A client gone mid-body ends the relay with an error nobody can be answered about.
  await relay(body, res).catch((err: unknown) => {
    if (!res.headersSent) throw fail(err as Error);
  });
}
