import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { success } from '@svc/envelope';
import type { Request, Response } from 'express';
import multer from 'multer';
import type { BlobStore } from '../storage/blob-store.js';
import { assetErrors } from '../errors.js';
import { MAX_DESCRIPTION } from './asset.schemas.js';
import type { IngestResult, IngestService } from './ingest.service.js';
import {
  fromMulterError,
  StagingStorageEngine,
  type StagedPart,
} from './staging-storage-engine.js';

/** What `POST /ingest` needs. */
export interface IngestHandlerDeps {
  ingest: IngestService;
  /** Where the `file` part is staged (its scratch space). */
  blobs: Pick<BlobStore, 'stage' | 'discard'>;
  maxUploadBytes: number;
}

/**
 * Buffering between the parser and the staging loop: big enough to keep the disk busy, small
 * enough that each read (which joins whatever is buffered) copies little and memory stays flat.
 */
const STREAM_CHUNK = 256 << 10;

/**
 * `POST /ingest` against Node's request and response: status and JSON body of the answer (a
 * throw is answered by the error handler). The one function both the ingest lane and the
 * Express route mount.
 */
export type IngestHandler = (
  req: IncomingMessage,
  res: ServerResponse,
) => Promise<[status: 200, body: { status: 'success'; data: IngestResult }]>;

/**
 * `POST /ingest`'s body: exactly one `file` part (streamed to `.tmp/` by the staging
 * storage engine under multer) plus text fields, then the ingest itself. Multer needs only
 * Node's request, so the same parser serves the Express route and the ingest lane.
 */
export function ingestHandler(deps: IngestHandlerDeps): IngestHandler {
  const upload = multer({
    storage: new StagingStorageEngine({
      blobs: deps.blobs,
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
    // Text fields as their bytes, decoded strictly by the ingest (`decodeFormText`).
    defCharset: 'latin1',
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
    const result = await deps.ingest.ingestUpload(
      file && { staged: file.staged, originalName: file.originalname || undefined },
      parsed.body,
    );
    return [200, success(result)];
  };
}
