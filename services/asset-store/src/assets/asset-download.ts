import contentDisposition from 'content-disposition';
import type { Request, Response } from 'express';
import send from 'send';
import { assetErrors } from '../errors.js';
import type { LocatedAsset } from './asset.service.js';
import { streamBlob } from './blob-download.js';
import { evaluatePreconditions, rangeApplies, type Validators } from './preconditions.js';

/** Content addressed by its hash never changes: caches may keep it for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/**
 * How long a presigned download stays good: the client follows the redirect at once, and S3
 * checks the signature when the GET starts, not while it streams.
 */
export const PRESIGNED_SECONDS = 60;
/**
 * Preconditions S3 would judge again by its own validators (its ETag is not ours, its
 * modification time is the object's write): such a GET is served here instead.
 */
const REJUDGED = ['if-match', 'if-unmodified-since', 'if-range'];

const DOWNLOAD_HEADERS = [
  'Content-Type',
  'Content-Disposition',
  'ETag',
  'Last-Modified',
  'Cache-Control',
  'Accept-Ranges',
  'Content-Length',
  'Content-Range',
  'X-Content-Type-Options',
  'Content-Security-Policy',
  'Repr-Digest',
];

/**
 * `attachment` (or `inline`, asked for) with the human file name when known, else the
 * physical one (RFC 6266): an ASCII `filename` for every client, `filename*` (UTF-8) when
 * the name is not plain ASCII.
 */
export function attachmentHeader(name: string, type: 'attachment' | 'inline' = 'attachment'): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_');
  return contentDisposition(name, { type, fallback: ascii });
}

/**
 * The validators and caching headers, on every answer (304 included). Stored content is
 * whatever a client sent: no type sniffing, and a sandbox so that HTML or SVG opened from
 * here runs no script with this origin's rights.
 */
function setCacheHeaders(res: Response, validators: Validators): void {
  res.setHeader('ETag', validators.etag);
  res.setHeader('Last-Modified', new Date(validators.lastModified).toUTCString());
  res.setHeader('Cache-Control', IMMUTABLE);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', 'sandbox');
}

/**
 * Streams an asset's file. Preconditions are decided here (RFC 9110, whatever the request's
 * `Cache-Control`); `send` then serves ranges (206/416) and HEAD without a body (a blob
 * that is no file here: `streamBlob`, the same way). Resolves
 * once the response is complete; rejects while nothing was sent yet, with an AppError or,
 * for a file gone since it was located, the file system's ENOENT.
 */
export function sendAsset(
  req: Request,
  res: Response,
  asset: LocatedAsset,
  dispositionType: 'attachment' | 'inline' = 'attachment',
): Promise<void> {
  const validators = { etag: `"${asset.record.hash}"`, lastModified: asset.record.timestamp };
  const outcome = evaluatePreconditions(req.headers, validators);
  if (outcome === 'failed') return Promise.reject(assetErrors.preconditionFailed());
  setCacheHeaders(res, validators);
  if (outcome === 'not-modified') {
    res.status(304).end();
    return Promise.resolve();
  }
  const disposition = attachmentHeader(
    asset.record.human_filename ?? asset.filename,
    dispositionType,
  );
  // Inline content is shown by the browser, so it must come with the sandbox, which S3
  // cannot add to its answer: served from here, not redirected.
  if (
    asset.presign &&
    dispositionType === 'attachment' &&
    req.method === 'GET' &&
    !REJUDGED.some((h) => h in req.headers)
  ) {
    return redirectToStorage(res, asset.presign, asset.record.mime_type, disposition);
  }
  res.setHeader('Content-Type', asset.record.mime_type);
  res.setHeader('Content-Disposition', disposition);
  res.setHeader('Accept-Ranges', 'bytes');
  if (asset.contentSha256 !== undefined) {
    // RFC 9530: the whole representation's digest, on ranges and HEAD alike.
    const digest = Buffer.from(asset.contentSha256, 'hex').toString('base64');
    res.setHeader('Repr-Digest', `sha-256=:${digest}:`);
  }
  const clear = (err: Error): Error => {
    if (!res.headersSent) for (const name of DOWNLOAD_HEADERS) res.removeHeader(name);
    return err;
  };
  const { absolutePath } = asset;
  if (absolutePath === undefined) {
    return streamBlob(req, res, asset, rangeApplies(req.headers, validators), clear);
  }
  return new Promise<void>((resolve, reject) => {
    const fail = (err: Error) => reject(clear(err));
    send(req, absolutePath, {
      // A `Range` under an `If-Range` that does not match gets the whole content.
      acceptRanges: rangeApplies(req.headers, validators),
      cacheControl: false,
      etag: false,
      lastModified: false,
      dotfiles: 'allow',
      index: false,
    })
      .on('error', (err: Error & { status?: number }) => {
        if (err.status === 416) {
          fail(assetErrors.rangeNotSatisfiable(asset.size));
        } else if (err.status === 404) {
          // A file gone since it was located keeps its ENOENT, for the caller to explain.
          fail((err as NodeJS.ErrnoException).code === 'ENOENT' ? err : assetErrors.missingFile());
        } else {
          fail(err);
        }
      })
      .on('end', () => resolve())
      .pipe(res)
      .on('finish', () => resolve())
      .on('close', () => resolve());
  });
}

/**
 * 307 to a presigned GET on which S3 answers with the download's type and disposition (and
 * the range the client asks for). The redirect itself must not be cached past the URL's
 * life, so it says `no-store`; the validators stay, as on every answer here.
 */
async function redirectToStorage(
  res: Response,
  presign: NonNullable<LocatedAsset['presign']>,
  contentType: string,
  contentDisposition: string,
): Promise<void> {
  let url: string;
  try {
    url = await presign({ contentType, contentDisposition }, PRESIGNED_SECONDS);
  } catch (err) {
    for (const name of DOWNLOAD_HEADERS) res.removeHeader(name);
    throw err;
  }
  res.setHeader('Cache-Control', 'no-store');
  res.redirect(307, url);
}
