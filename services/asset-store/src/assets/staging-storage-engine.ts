import type { Request } from 'express';
import multer, { type StorageEngine } from 'multer';
import { assetErrors } from '../errors.js';
import type { BlobStore, StagedBlob } from '../storage/blob-store.js';

/** What the engine adds to multer's file object. */
export interface StagedPart {
  /** The staged copy's handle (a path under `.tmp/`, an object key). */
  path: string;
  size: number;
  staged: StagedBlob;
}

/**
 * A multer storage engine that streams the `file` part into the blob store's scratch space
 * (`.tmp/` on the file system), hashing as it goes
 * (the timestamp is asked for when the part starts, because the hash begins with it). It
 * removes its own partial file on any failure (client gone, limit passed),
 * since multer only cleans up parts the engine reported complete.
 */
export class StagingStorageEngine implements StorageEngine {
  constructor(
    private readonly options: {
      blobs: Pick<BlobStore, 'stage' | 'discard'>;
      maxBytes: number;
      nextTimestamp: () => Promise<number>;
    },
  ) {}

  _handleFile(
    _req: Request,
    file: Express.Multer.File,
    callback: (error?: unknown, info?: Partial<Express.Multer.File>) => void,
  ): void {
    const { blobs, maxBytes, nextTimestamp } = this.options;
    // Asked for now, awaited by staging only when the hash needs it (PendingTimestamp).
    blobs
      .stage(nextTimestamp(), file.stream, {
        maxBytes,
        error: () => assetErrors.uploadTooLarge(maxBytes),
      })
      .then(
        (staged) => {
          const part: StagedPart = { path: staged.ref, size: staged.size, staged };
          callback(null, part);
        },
        (err: unknown) => {
          file.stream.resume();
          if (typeof err === 'object' && err !== null) fromStaging.add(err);
          callback(err);
        },
      );
  }

  _removeFile(
    _req: Request,
    file: Express.Multer.File,
    callback: (error: Error | null) => void,
  ): void {
    this.options.blobs.discard((file as Express.Multer.File & StagedPart).staged).then(
      () => callback(null),
      (err: Error) => callback(err),
    );
  }
}

/**
 * What staging failed with (the store, the database issuing the timestamp): never the body's
 * fault, whatever its shape. pg's "Connection terminated unexpectedly" is a bare `Error` too.
 */
const fromStaging = new WeakSet<object>();

/**
 * busboy reports a body it cannot parse (no boundary, a cut-off part, a malformed header)
 * as a bare `Error`; disk failures carry an errno `code`, our own errors are subclasses, and
 * staging's own failures are marked (`fromStaging`).
 */
function isParseFailure(err: unknown): err is Error {
  return (
    err instanceof Error && err.constructor === Error && !('code' in err) && !fromStaging.has(err)
  );
}

/** Multer's and the multipart parser's own failures, in the catalogue's words. */
export function fromMulterError(err: unknown, maxBytes: number): unknown {
  if (isParseFailure(err)) return assetErrors.malformedMultipart(err.message);
  if (!(err instanceof multer.MulterError)) return err;
  switch (err.code) {
    case 'LIMIT_FILE_SIZE':
      return assetErrors.uploadTooLarge(maxBytes);
    case 'LIMIT_UNEXPECTED_FILE':
      return err.field === 'file'
        ? assetErrors.tooManyFiles()
        : assetErrors.unexpectedPart(err.field ?? '');
    case 'LIMIT_FIELD_VALUE':
      return assetErrors.fieldTooLong(err.field ?? '');
    default:
      return assetErrors.malformedMultipart(err.message);
  }
}
