import { methodNotAllowed, success } from '@svc/envelope';
import { Router, type RequestHandler } from 'express';
import { assetErrors } from '../errors.js';
import { parseHash, parseInput } from '../validation.js';
import { sendAsset } from './asset-download.js';
import { downloadQuery, patchSchema } from './asset.schemas.js';
import type { AssetService } from './asset.service.js';
import type { IngestHandler } from './ingest.handler.js';
import type { IngestService } from './ingest.service.js';
import { jsonBody } from './json-body.js';

/** What the asset routes call. */
export interface AssetRoutesDeps {
  assets: AssetService;
  ingest: IngestService;
  /** `POST /ingest`, shared with the ingest lane. */
  ingestUpload: IngestHandler;
  maxJsonBytes: number;
}

/** Ingest, download, metadata, PATCH, trash and restore, under `/api/v1/can/0`. */
export function assetRoutes(deps: AssetRoutesDeps): Router {
  const router = Router();
  const json = jsonBody(deps.maxJsonBytes);
  const losslessJson = jsonBody(deps.maxJsonBytes, { lossless: true });

  router
    .route('/ingest')
    .post(async (req, res) => {
      const [status, body] = await deps.ingestUpload(req, res);
      res.status(status).json(body);
    })
    .all(methodNotAllowed(['POST']));

  router
    .route('/ingest/data')
    .post(losslessJson, async (req, res) => {
      res.json(success(await deps.ingest.ingestData(req.body)));
    })
    .all(methodNotAllowed(['POST']));

  router
    .route('/asset/:hash')
    .get(async (req, res) => {
      const hash = parseHash(req.params.hash);
      const { disposition } = parseInput(downloadQuery, req.query, 'query');
      await deps.assets.withFile(hash, (asset) => sendAsset(req, res, asset, disposition));
    })
    .patch(json, async (req, res) => {
      const hash = parseHash(req.params.hash);
      await deps.assets.update(hash, parseInput(patchSchema, req.body, 'body'));
      res.json(success('updated'));
    })
    .delete(async (req, res) => {
      await deps.assets.trash(parseHash(req.params.hash));
      res.json(success('trashed'));
    })
    .all(methodNotAllowed(['GET', 'HEAD', 'PATCH', 'DELETE']));

  router
    .route('/asset/:hash/meta')
    .get(async (req, res) => {
      res.json(success(await deps.assets.getRecord(parseHash(req.params.hash))));
    })
    .all(methodNotAllowed(['GET', 'HEAD']));

  router
    .route('/asset/:hash/restore')
    .post(async (req, res) => {
      await deps.assets.restore(parseHash(req.params.hash));
      res.json(success('restored'));
    })
    .all(methodNotAllowed(['POST']));

  return router;
}

/**
 * `/api/v1/can/{container}/…` for any container but `0`: 404, whatever follows, so the
 * answer is the same for every feature mounted under the container.
 */
export const onlyContainerZero: RequestHandler = (req, _res, next) => {
  if (req.params.container !== '0') throw assetErrors.containerNotFound();
  next();
};
