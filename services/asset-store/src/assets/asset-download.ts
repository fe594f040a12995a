import contentDisposition from 'content-disposition';
import type { Request, Response } from 'express';
import send from 'send';
import { assetErrors } from '../errors.js';
import type { LocatedAsset } from './asset.service.js';

/** Content addressed by its hash never changes: caches may keep it for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

const DOWNLOAD_HEADERS = [
  'Content-Type',
  'Content-Disposition',
  'ETag',
  'Cache-Control',
  'Accept-Ranges',
  'Content-Length',
  'Content-Range',
];

/**
 * `attachment` with the human file name when known, else the physical one (RFC 6266): an
 * ASCII `filename` for every client, `filename*` (UTF-8) when the name is not plain ASCII.
 */
export function attachmentHeader(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_');
  return contentDisposition(name, { type: 'attachment', fallback: ascii });
}

/**
 * Streams an asset's file with ranges and conditional requests handled by `send`
 * (206/416, 304 on `If-None-Match`, HEAD without a body). Resolves once the response is
 * complete; rejects while nothing was sent yet, with an AppError or, for a file gone since
 * it was located, the file system's ENOENT.
 */
export function sendAsset(req: Request, res: Response, asset: LocatedAsset): Promise<void> {
  res.setHeader('Content-Type', asset.record.mime_type);
  res.setHeader(
    'Content-Disposition',
    attachmentHeader(asset.record.human_filename ?? asset.filename),
  );
  res.setHeader('ETag', `"${asset.record.hash}"`);
  res.setHeader('Cache-Control', IMMUTABLE);
  return new Promise<void>((resolve, reject) => {
    const fail = (err: Error) => {
      if (!res.headersSent) for (const name of DOWNLOAD_HEADERS) res.removeHeader(name);
      reject(err);
    };
    send(req, asset.absolutePath, {
      acceptRanges: true,
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
