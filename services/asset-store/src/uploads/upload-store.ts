import { createHash, timingSafeEqual, type Hash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { DataStore, ERRORS, Upload } from '@tus/utils';
import { assetErrors } from '../errors.js';
import { expectedChecksum } from './upload-checksum.js';

/** The asset a finished upload became. */
export interface UploadedAsset {
  hash: string;
  timestamp: number;
}

/** What `.tmp/uploads/<id>.json` holds beside the upload's bytes in `.tmp/uploads/<id>`. */
export interface UploadInfo {
  id: string;
  size: number;
  metadata: Record<string, string | null>;
  /** ISO 8601; the upload expires `upload_expiry_hours` after it. */
  creation_date: string;
  /** Set once the upload became an asset (its bytes are then gone from here). */
  asset?: UploadedAsset;
}

/** The plain SHA-256 of an upload's bytes so far, fed as they were written. */
interface RunningDigest {
  hash: Hash;
  bytes: number;
}

/**
 * Writes are gathered up to this size and written in one call: a thread-pool round trip per
 * 64 KiB network chunk costs more than the copy.
 */
const WRITE_BATCH = 1 << 20;

const INFO_SUFFIX = '.json';

/**
 * The tus data store of resumable uploads: bytes in `.tmp/uploads/<id>`, the upload's
 * length, metadata and creation time in `<id>.json`, so an upload survives a restart and
 * any process on the storage root can resume it. The offset is the data file's size. With an
 * `Upload-Checksum` (see `upload-checksum.ts`) a body that does not match is cut off the file
 * again and answered 460. The plain SHA-256 of the content is kept up to date in memory as
 * bytes arrive, so the completion reads the file once only for the timestamped hash.
 */
export class AssetUploadStore extends DataStore {
  readonly #digests = new Map<string, RunningDigest>();

  constructor(
    private readonly options: {
      /** `.tmp/uploads/` */
      dir: string;
      expiryMs: number;
      clock?: () => number;
    },
  ) {
    super();
    this.extensions = ['creation', 'creation-with-upload', 'termination', 'expiration', 'checksum'];
  }

  /** Where an upload's bytes are. */
  dataPath(id: string): string {
    return path.join(this.options.dir, id);
  }

  override getExpiration(): number {
    return this.options.expiryMs;
  }

  override async create(upload: Upload): Promise<Upload> {
    const handle = await fs.open(this.dataPath(upload.id), 'wx');
    await handle.close();
    await this.writeInfo({
      id: upload.id,
      size: upload.size ?? 0,
      metadata: upload.metadata ?? {},
      creation_date: upload.creation_date ?? new Date(this.now()).toISOString(),
    });
    if (upload.offset === 0) this.#digests.set(upload.id, { hash: createHash('sha256'), bytes: 0 });
    return upload;
  }

  override async getUpload(id: string): Promise<Upload> {
    const info = await this.readInfo(id);
    if (!info) throw notFoundError();
    let offset = info.size;
    if (!info.asset) {
      const stat = await fs.stat(this.dataPath(id)).catch(notFoundAs(undefined));
      if (!stat) throw notFoundError();
      offset = stat.size;
    }
    return new Upload({
      id,
      size: info.size,
      offset,
      metadata: info.metadata,
      creation_date: info.creation_date,
      storage: { type: 'file', path: this.dataPath(id) },
    });
  }

  override async write(stream: Readable, id: string, offset: number): Promise<number> {
    const checksum = expectedChecksum();
    const running = this.#digests.get(id);
    this.#digests.delete(id);
    // A copy, so a body refused by its checksum leaves the running digest as it was.
    const content = running?.bytes === offset ? running.hash.copy() : undefined;
    const check = checksum ? createHash('sha256') : undefined;
    const handle = await fs.open(this.dataPath(id), 'r+').catch(notFoundAs(undefined));
    if (!handle) {
      // The last PATCH again, its answer lost: the upload is an asset now, and nothing more
      // may come (tus allows no byte past the length). Answered like HEAD by the caller.
      const info = await this.readInfo(id);
      if (info?.asset && offset === info.size) {
        const extra = stream[Symbol.asyncIterator]();
        if (!(await extra.next()).done) throw notFoundError();
        return offset;
      }
      throw notFoundError();
    }
    let position = offset;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      if (pendingBytes === 0) return;
      const buffers = pending;
      pending = [];
      pendingBytes = 0;
      position += await writeAllAt(handle, buffers, position);
      for (const buffer of buffers) content?.update(buffer);
    };
    let refused = false;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        check?.update(chunk);
        pending.push(chunk);
        pendingBytes += chunk.length;
        if (pendingBytes >= WRITE_BATCH) await flush();
      }
      await flush();
      if (checksum && !timingSafeEqual(check!.digest(), checksum)) {
        throw assetErrors.checksumMismatch();
      }
    } catch (err) {
      // With a checksum, a body that does not match, or cannot be checked (cut off, failed),
      // never counts: the offset stays where it was.
      refused = checksum !== undefined;
      throw err;
    } finally {
      if (refused) await handle.truncate(offset).catch(() => undefined);
      await handle.close();
      // A digest whose byte count is not the next offset is never used (`contentDigest`).
      const keep = refused ? running : content && { hash: content, bytes: position };
      if (keep) this.#digests.set(id, keep);
    }
    return position;
  }

  override async remove(id: string): Promise<void> {
    const info = await this.readInfo(id);
    if (!info) throw notFoundError();
    await this.discard(id);
  }

  override async deleteExpired(): Promise<number> {
    const now = this.now();
    let removed = 0;
    const names = await fs.readdir(this.options.dir).catch(notFoundAs([] as string[]));
    for (const name of names) {
      if (name.endsWith(INFO_SUFFIX)) {
        const id = name.slice(0, -INFO_SUFFIX.length);
        const info = await this.readInfo(id).catch(() => undefined);
        const created = info ? Date.parse(info.creation_date) : Number.NaN;
        if (Number.isNaN(created) || created + this.options.expiryMs < now) {
          await this.discard(id);
          removed++;
        }
      } else if (!names.includes(name + INFO_SUFFIX)) {
        // Bytes without an info file (a crash between the two, an info write's temp file).
        const stat = await fs.stat(path.join(this.options.dir, name)).catch(notFoundAs(undefined));
        if (stat && stat.mtimeMs + this.options.expiryMs < now) {
          await fs.rm(path.join(this.options.dir, name), { force: true });
          removed++;
        }
      }
    }
    return removed;
  }

  /** The upload's info file, or undefined when there is none. */
  async readInfo(id: string): Promise<UploadInfo | undefined> {
    const text = await fs
      .readFile(this.infoPath(id), 'utf8')
      .catch(notFoundAs(undefined as string | undefined));
    return text === undefined ? undefined : (JSON.parse(text) as UploadInfo);
  }

  /**
   * The plain SHA-256 (hex) of the upload's `size` bytes if this process saw every one of
   * them arrive; undefined otherwise (after a restart: the completion reads it from the file).
   */
  contentDigest(id: string, size: number): string | undefined {
    const running = this.#digests.get(id);
    return running?.bytes === size ? running.hash.copy().digest('hex') : undefined;
  }

  /** Records that the upload became `asset` and drops its bytes (the asset holds them now). */
  async markFinished(id: string, asset: UploadedAsset): Promise<void> {
    const info = await this.readInfo(id);
    if (!info) return;
    await this.writeInfo({ ...info, asset });
    this.#digests.delete(id);
    await fs.rm(this.dataPath(id), { force: true });
  }

  private async discard(id: string): Promise<void> {
    this.#digests.delete(id);
    await fs.rm(this.dataPath(id), { force: true });
    await fs.rm(this.infoPath(id), { force: true });
  }

  private infoPath(id: string): string {
    return path.join(this.options.dir, id + INFO_SUFFIX);
  }

  /** Written aside and renamed, so a reader never sees half a file. */
  private async writeInfo(info: UploadInfo): Promise<void> {
    const temp = `${this.infoPath(info.id)}.${process.pid}.tmp`;
    await fs.writeFile(temp, JSON.stringify(info));
    await fs.rename(temp, this.infoPath(info.id));
  }

  private now(): number {
    return (this.options.clock ?? Date.now)();
  }
}

/** The store of a storage root's `.tmp/uploads/`, expiring after `expiryHours`. */
export function uploadStoreFor(uploadsDir: string, expiryHours: number): AssetUploadStore {
  return new AssetUploadStore({ dir: uploadsDir, expiryMs: Math.round(expiryHours * 3_600_000) });
}

/** Writes `buffers` at `position` in one call (no copy), short writes continued. */
async function writeAllAt(
  handle: fs.FileHandle,
  buffers: Buffer[],
  position: number,
): Promise<number> {
  const total = buffers.reduce((sum, b) => sum + b.length, 0);
  let done = (await handle.writev(buffers, position)).bytesWritten;
  if (done < total) {
    const rest = Buffer.concat(buffers).subarray(done);
    for (let offset = 0; offset < rest.length;) {
      const { bytesWritten } = await handle.write(
        rest,
        offset,
        rest.length - offset,
        position + done,
      );
      offset += bytesWritten;
      done += bytesWritten;
    }
  }
  return total;
}

/** tus's 404, as @tus/server reads it (`status_code`, `body`), made an Error to be thrown. */
function notFoundError(): Error {
  return Object.assign(new Error('upload not found'), ERRORS.FILE_NOT_FOUND);
}

function isNotFound(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | null)?.code === 'ENOENT';
}

/** A catch handler: ENOENT answers `value`, anything else is rethrown. */
function notFoundAs<T>(value: T): (err: unknown) => T {
  return (err) => {
    if (isNotFound(err)) return value;
    throw err;
  };
}
