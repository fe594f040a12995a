import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { methodNotAllowed, success } from '@svc/envelope';
import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import multer from 'multer';
import { assetErrors } from '../errors.js';
import { sendAsset } from './asset-download.js';
import { parseInput, patchSchema, MAX_DESCRIPTION } from './asset.schemas.js';
import { parseHash, type AssetService } from './asset.service.js';
import type { IngestResult, IngestService } from './ingest.service.js';
import {
  fromMulterError,
  StagingStorageEngine,
  type StagedPart,
} from './staging-storage-engine.js';

/** What the asset routes call. */
export interface AssetRoutesDeps {
  assets: AssetService;
  ingest: IngestService;
  tmpDir: string;
  maxUploadBytes: number;
  maxJsonBytes: number;
}

/**
 * Buffering between the parser and the staging loop: big enough to keep the disk busy, small
 * enough that each read (which joins whatever is buffered) copies little and memory stays flat.
 */
const STREAM_CHUNK = 256 << 10;

/** `POST /ingest` from the request to the stored asset; the lane and the route share it. */
export type MultipartIngest = (req: IncomingMessage, res: ServerResponse) => Promise<IngestResult>;

/**
 * `POST /ingest`'s body: exactly one `file` part (streamed to `.tmp/` by the staging
 * storage engine under multer) plus text fields, then the ingest itself. Multer needs only
 * Node's request, so the same parser serves the Express route and the ingest lane.
 */
export function multipartIngest(deps: AssetRoutesDeps): MultipartIngest {
  const upload = multer({
    storage: new StagingStorageEngine({
      tmpDir: deps.tmpDir,
      maxBytes: deps.maxUploadBytes,
      nextTimestamp: () => deps.ingest.nextTimestamp(),
    }),
    limits: {
      // Descriptions of 16,384 characters may take 4 bytes each in UTF-8.
      fieldSize: MAX_DESCRIPTION * 4,
      fields: 32,
      parts: 40,
    },
    highWaterMark: STREAM_CHUNK,
    fileHwm: STREAM_CHUNK,
  } as multer.Options).single('file');
  const parse = promisify(upload) as (req: Request, res: Response) => Promise<void>;
  return async (req, res) => {
    // busboy parses the bytes as they come: compressed, they would fail as a malformed
    // body, and an unknown encoding would be stored as if there were none.
    const encoding = req.headers['content-encoding']?.trim().toLowerCase();
    if (encoding && encoding !== 'identity') throw assetErrors.unsupportedEncoding();
    const parsed = req as Request;
    try {
      await parse(parsed, res as Response);
    } catch (err) {
      throw fromMulterError(err, deps.maxUploadBytes);
    }
    const file = parsed.file as (Express.Multer.File & StagedPart) | undefined;
    return deps.ingest.ingestUpload(
      file && { staged: file.staged, originalName: file.originalname || undefined },
      parsed.body,
    );
  };
}

/** Ingest, download, metadata, PATCH, trash and restore, under `/api/v1/can/0`. */
export function assetRoutes(deps: AssetRoutesDeps, ingestMultipart: MultipartIngest): Router {
  const router = Router();
  const json = express.json({ limit: deps.maxJsonBytes, type: () => true, strict: false });

  router
    .route('/ingest')
    .post(async (req, res) => {
      res.json(success(await ingestMultipart(req, res)));
    })
    .all(methodNotAllowed(['POST']));

  router
    .route('/ingest/data')
    .post(json, async (req, res) => {
      res.json(success(await deps.ingest.ingestData(req.body)));
    })
    .all(methodNotAllowed(['POST']));

  router
    .route('/asset/:hash')
    .get(async (req, res) => {
      await deps.assets.withFile(parseHash(req.params.hash), (asset) => sendAsset(req, res, asset));
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
