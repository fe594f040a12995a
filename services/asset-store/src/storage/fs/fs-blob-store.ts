import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { scanStorage } from './storage-scan.js';
import { AssetFiles } from './asset-files.js';
import type { AssetStorage } from './asset-storage.js';
import type { AssetAttributes } from '../attributes.js';
import {
  blobNotFound,
  type BlobEntry,
  type BlobName,
  type BlobPlacement,
  type BlobStat,
  type BlobStore,
  type ByteRange,
  type CachedEntry,
  type ListOptions,
  type StagedBlob,
} from '../blob-store.js';
import { toAbsolutePath, toRelativePath } from '../layout.js';
import type { OwnRenames } from './own-renames.js';
import type { PlacementAnnouncer } from './placement-notices.js';
import { discardFile, stageStream, type PendingTimestamp, type SizeLimit } from '../staged-file.js';

/** What changes when a file's content is changed or replaced (as `FileIdentities` reads it). */
function statOf(stat: fs.Stats): BlobStat {
  return {
    size: stat.size,
    version: `${stat.size}:${stat.ino}:${stat.mtimeMs}:${stat.ctimeMs}`,
    modifiedMs: stat.mtimeMs,
  };
}

function isGone(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * The storage root as a blob store: today's behaviour, delegated to the code that has it.
 * Staging streams into this process's folder under `.tmp/` (`stageStream`); placing writes
 * the attributes (xattrs, or a `.meta/` sidecar), fsyncs, renames and fsyncs the folder
 * (`AssetFiles`); the cache is `.thumbs/`.
 */
export class FsBlobStore implements BlobStore {
  readonly kind = 'fs';
  readonly #files: AssetFiles;

  constructor(
    private readonly storage: Pick<AssetStorage, 'layout' | 'attributes'>,
    ownRenames?: OwnRenames,
    /** Told of each file placed, for other instances' watches on the same folder. */
    private readonly placements?: PlacementAnnouncer,
  ) {
    this.#files = new AssetFiles(storage, ownRenames);
  }

  #path(name: BlobName): string {
    return toAbsolutePath(this.storage.layout, name);
  }

  async stage(
    timestamp: PendingTimestamp,
    source: AsyncIterable<Buffer> | Iterable<Buffer>,
    limit?: SizeLimit,
  ): Promise<StagedBlob> {
    const { tmpPath, ...staged } = await stageStream(
      this.storage.layout.tmp,
      timestamp,
      source,
      limit,
    );
    return { ref: tmpPath, ...staged };
  }

  async readStagedHead(staged: StagedBlob, maxBytes: number): Promise<Buffer> {
    const handle = await fsp.open(staged.ref, 'r');
    try {
      const buffer = Buffer.allocUnsafe(Math.min(maxBytes, staged.size));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  }

  discard(staged: StagedBlob): Promise<void> {
    return discardFile(staged.ref);
  }

  place(staged: StagedBlob, name: BlobName, attrs: AssetAttributes): BlobPlacement {
    const placement = this.#files.place(staged.ref, name, attrs);
    const relative = toRelativePath(this.storage.layout, placement.finalPath);
    // The file as it stands once renamed with its attributes (each write moves its ctime);
    // a change after this is the watcher's to catch, as for any file. A quick metadata
    // syscall, so synchronous: a thread-pool round trip costs every ingest more.
    const verifiedVersion = placement.durable.then(() => {
      const stat = fs.statSync(placement.finalPath, { throwIfNoEntry: false });
      if (!stat?.isFile()) return '';
      const { version } = statOf(stat);
      this.placements?.announce(staged.hash, version);
      return version;
    });
    // A failed placement is reported through `durable`; this one is only ever asked after.
    verifiedVersion.catch(() => undefined);
    return {
      name: relative,
      durable: placement.durable,
      verifiedVersion,
      undo: () => placement.undo(),
    };
  }

  async stat(name: BlobName): Promise<BlobStat | undefined> {
    try {
      const stat = await fsp.stat(this.#path(name));
      return stat.isFile() ? statOf(stat) : undefined;
    } catch (err) {
      if (isGone(err)) return undefined;
      throw err;
    }
  }

  async read(name: BlobName, range?: ByteRange): Promise<Readable> {
    let handle: fsp.FileHandle;
    try {
      // Opened first, so a missing file rejects here rather than on the stream.
      handle = await fsp.open(this.#path(name), 'r');
    } catch (err) {
      if (isGone(err)) throw blobNotFound(name);
      throw err;
    }
    // A folder opens too on Linux; only a regular file is a blob.
    if (!(await handle.stat()).isFile()) {
      await handle.close();
      throw blobNotFound(name);
    }
    return handle.createReadStream({
      start: range?.start,
      end: range?.end,
      highWaterMark: 1 << 20,
    });
  }

  async *list({ topLevel = false, accept }: ListOptions = {}): AsyncIterable<BlobEntry> {
    for await (const file of scanStorage(this.storage.layout, { recursive: !topLevel })) {
      if (accept && !accept(file.relative)) continue;
      const stat = await fsp.stat(file.absolute).catch((err: unknown) => {
        if (isGone(err)) return undefined;
        throw err;
      });
      // Gone between the listing and the stat: it is not there any more.
      if (stat) yield { name: file.relative, ...statOf(stat) };
    }
  }

  async readAttributes(name: BlobName): Promise<AssetAttributes | undefined> {
    try {
      return await this.storage.attributes.read(this.#path(name));
    } catch (err) {
      // The attribute store reads a file's own xattrs: no file, no attributes.
      if (isGone(err)) return undefined;
      throw err;
    }
  }

  writeAttributes(name: BlobName, attrs: AssetAttributes): Promise<void> {
    return this.storage.attributes.write(this.#path(name), attrs);
  }

  async delete(name: BlobName): Promise<void> {
    const file = this.#path(name);
    await this.storage.attributes.remove(file);
    await discardFile(file);
  }

  async readCached(name: string): Promise<Buffer | undefined> {
    try {
      return await fsp.readFile(path.join(this.storage.layout.thumbs, name));
    } catch (err) {
      if (isGone(err)) return undefined;
      throw err;
    }
  }

  /** Written under `.tmp/` and renamed into place: a reader never sees half of it. */
  async writeCached(name: string, content: Buffer): Promise<void> {
    const { thumbs, tmp } = this.storage.layout;
    await fsp.mkdir(thumbs, { recursive: true });
    await fsp.mkdir(tmp, { recursive: true });
    const temp = path.join(tmp, `cache-${randomBytes(8).toString('hex')}`);
    await fsp.writeFile(temp, content);
    try {
      await fsp.rename(temp, path.join(thumbs, name));
    } catch (err) {
      await discardFile(temp);
      throw err;
    }
  }

  async removeCached(prefix: string): Promise<void> {
    const { thumbs } = this.storage.layout;
    const names = await this.#cachedNames();
    await Promise.all(
      names
        .filter((n) => n.startsWith(prefix))
        .map((n) => fsp.rm(path.join(thumbs, n), { force: true })),
    );
  }

  /** The thumbnail folder's names; none while it does not exist yet. */
  async #cachedNames(): Promise<string[]> {
    try {
      return await fsp.readdir(this.storage.layout.thumbs);
    } catch (err) {
      if (isGone(err)) return [];
      throw err;
    }
  }

  async *listCached(): AsyncIterable<CachedEntry> {
    const { thumbs } = this.storage.layout;
    const names = await this.#cachedNames();
    for (const name of names) {
      const stat = await fsp.stat(path.join(thumbs, name)).catch(() => undefined);
      if (stat?.isFile()) yield { name, size: stat.size, usedMs: stat.atimeMs };
    }
  }
}
