import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AssetAttributes } from './attributes.js';
import type { PendingTimestamp, SizeLimit } from './staged-file.js';

/**
 * Blob names are paths relative to the storage (`/` separators), as the index stores them:
 * `{timestamp}_{hash}_{tags}.{ext}` for the service's own, anything for files put there by
 * hand. A segment starting with `.` is the service's own space and never an asset.
 */
export type BlobName = string;

/** What `stat` and `list` say about one blob. */
export interface BlobStat {
  size: number;
  /**
   * Changes whenever the content is replaced (file identity: size, inode, mtime, ctime; an
   * object's ETag and modification time), so a watcher can tell a blob changed behind its back.
   */
  version: string;
  /** Epoch milliseconds of the last change. */
  modifiedMs: number;
}

/** One blob found by `list`. */
export interface BlobEntry extends BlobStat {
  name: BlobName;
}

/** One cached derivative found by `listCached`. */
export interface CachedEntry {
  name: string;
  size: number;
  /** Epoch milliseconds of its last use as far as the backend tells (atime; S3: its write). */
  usedMs: number;
}

/** Which blobs `list` gives. */
export interface ListOptions {
  /** Only names without a `/` (default: every level). */
  topLevel?: boolean;
  /** Only names it accepts; asked before anything else is read about a blob. */
  accept?: (name: BlobName) => boolean;
}

/** A stream read that can write itself to a sink more cheaply than a pipe (the S3 direct read). */
export interface Relayable {
  /** Writes the rest of the content to `out` and ends it; rejects as `pipeline` would. */
  relayTo(out: Writable): Promise<void>;
}

/** Writes what `read` gave to `out`: relayed when the stream can, else piped. */
export function relay(body: Readable, out: Writable): Promise<void> {
  const relayable = body as Readable & Partial<Relayable>;
  return relayable.relayTo ? relayable.relayTo(out) : pipeline(body, out);
}

/** The response headers a presigned download sets on the storage's answer. */
export interface DownloadResponse {
  contentType: string;
  contentDisposition: string;
}

/** Inclusive byte offsets, as HTTP `Range` counts them. */
export interface ByteRange {
  start: number;
  end: number;
}

/** A complete upload in scratch space, hashed on the way in, not yet an asset. */
export interface StagedBlob {
  /** The adapter's handle on the scratch copy (a path under `.tmp/`, an object key). */
  ref: string;
  timestamp: number;
  /** The asset hash (timestamp first). */
  hash: string;
  /** Plain SHA-256 of the content, lowercase hex. */
  sha256: string;
  size: number;
  /** The first bytes, for magic-byte MIME detection without reading the content again. */
  head: Buffer;
  /**
   * The whole content, when the adapter kept a small one in memory rather than in scratch
   * space (S3: one `PutObject` at `place` instead of a put, a copy and a delete).
   */
  bytes?: Buffer;
}

/** A staged blob on its way to its name, as `place` started it. */
export interface BlobPlacement {
  name: BlobName;
  /** Resolves once the blob and its attributes are complete and durable under `name`. */
  durable: Promise<void>;
  /**
   * Resolves with the placed blob's `BlobStat.version` as written from the staged bytes
   * (hashed as they streamed), once durable; an adapter that cannot tell leaves it out, and
   * the blob is verified again at its first read.
   */
  verifiedVersion?: Promise<string>;
  /** Removes whatever of the placement got done (after it settled): blob and attributes. */
  undo(): Promise<void>;
}

/**
 * The port to where asset contents live: the file system (`FsBlobStore`) or an S3 bucket
 * (`S3BlobStore`). Ingest stages into scratch space (hashing as it streams), then places the
 * staged blob under its final name with its attributes, atomically: a reader sees the whole
 * blob with its attributes, or nothing. Every adapter runs `blobStoreContract`.
 *
 * A blob that is not there makes `read` reject with an error whose `code` is `ENOENT`, so
 * callers explain a vanished file the same way on every backend.
 */
export interface BlobStore {
  /** `fs` or `s3`, for logs and for the few rules that differ (the watch). */
  readonly kind: 'fs' | 's3';
  /**
   * Streams `source` into scratch space, hashing as it goes, holding a bounded amount in
   * memory. On any failure (the source erroring, the limit passed) nothing is left and the
   * error is rethrown; a stream source is destroyed. A `timestamp` that rejects fails the
   * staging the same way.
   */
  stage(
    timestamp: PendingTimestamp,
    source: AsyncIterable<Buffer> | Iterable<Buffer>,
    limit?: SizeLimit,
  ): Promise<StagedBlob>;
  /**
   * The first `maxBytes` of a staged blob (all of it when shorter): an image's header, for
   * its probed facts at ingest.
   */
  readStagedHead(staged: StagedBlob, maxBytes: number): Promise<Buffer>;
  /** Drops a staged blob that will not become an asset; fine when it is gone already. */
  discard(staged: StagedBlob): Promise<void>;
  /** Starts making `staged` the blob `name` with `attrs`; see `BlobPlacement`. */
  place(staged: StagedBlob, name: BlobName, attrs: AssetAttributes): BlobPlacement;
  /** Size and version, or undefined when there is no such blob. */
  stat(name: BlobName): Promise<BlobStat | undefined>;
  /** The content (or one range of it) as a stream; ENOENT when there is no such blob. */
  read(name: BlobName, range?: ByteRange): Promise<Readable>;
  /**
   * A URL a client can GET the blob from directly for `seconds`, the storage answering with
   * `response`'s headers; absent where clients cannot reach the storage (files).
   */
  presignedDownload?(name: BlobName, response: DownloadResponse, seconds: number): Promise<string>;
  /** Every asset blob (the service's own dot-space skipped), one at a time. */
  list(options?: ListOptions): AsyncIterable<BlobEntry>;
  /** The blob's attributes, or undefined when it has none (or they are unreadable). */
  readAttributes(name: BlobName): Promise<AssetAttributes | undefined>;
  /** Replaces the blob's whole attribute set, durably. */
  writeAttributes(name: BlobName, attrs: AssetAttributes): Promise<void>;
  /** Removes the blob and its attributes; fine when there is none. */
  delete(name: BlobName): Promise<void>;
  /** A cached derivative (thumbnail) by its name in the cache, or undefined on a miss. */
  readCached(name: string): Promise<Buffer | undefined>;
  /** Stores a cached derivative whole: a reader never sees half of it. */
  writeCached(name: string, content: Buffer): Promise<void>;
  /** Removes every cached derivative whose name starts with `prefix`. */
  removeCached(prefix: string): Promise<void>;
  /** Every cached derivative, for the cache's size bound after a restart. */
  listCached(): AsyncIterable<CachedEntry>;
}

/** The error `read` rejects with for a blob that is not there (ENOENT, as on a disk). */
export function blobNotFound(name: BlobName): NodeJS.ErrnoException {
  return Object.assign(new Error(`no blob named ${name}`), { code: 'ENOENT' });
}
