import { methodNotAllowed } from '@svc/envelope';
import { Router } from 'express';
import { noneMatchHits } from '../assets/preconditions.js';
import { assetErrors } from '../errors.js';
import { parseHash } from '../validation.js';
import type { Box } from './thumbnail.renderer.js';
import type { ThumbnailService } from './thumbnail.service.js';

const DIGITS = /^\d+$/;

/** A box side: an integer 1-4096, leading zeros allowed, as list and search read integers. */
function side(name: string, value: string): number {
  const n = Number(value);
  if (!DIGITS.test(value) || n < 1 || n > 4096) {
    throw assetErrors.badParameter(name, 'an integer from 1 to 4096');
  }
  return n;
}

/** Checks the path in the spec's order: hash, then the two sides. */
function parseThumbParams(params: Record<string, string>): { hash: string; box: Box } {
  const hash = parseHash(params.hash);
  const box = {
    width: side('max_width', params.max_width ?? ''),
    height: side('max_height', params.max_height ?? ''),
  };
  return { hash, box };
}

/** `GET /asset/{hash}/thumb/{max_width}/{max_height}`, mounted under `/api/v1/can/0`. */
export function thumbnailRoutes(deps: { thumbnails: ThumbnailService }): Router {
  const router = Router();
  router
    .route('/asset/:hash/thumb/:max_width/:max_height')
    .get(async (req, res) => {
      const { hash, box } = parseThumbParams(req.params);
      const thumb = await deps.thumbnails.get(hash, box);
      // Same hash, same bytes: the content behind a hash never changes.
      res.set({
        ETag: thumb.etag,
        'Cache-Control': 'public, max-age=31536000, immutable',
        'X-Content-Type-Options': 'nosniff',
      });
      // Decided here: Express's own freshness check gives up on a request's `no-cache`.
      if (noneMatchHits(req.headers, thumb.etag)) {
        res.status(304).end();
        return;
      }
      res.type(thumb.contentType).send(thumb.body);
    })
    .all(methodNotAllowed(['GET', 'HEAD']));
  return router;
}
