import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import type { AssetService, LocatedAsset } from '../assets/asset.service.js';
import { Limiter } from '../concurrency/limiter.js';
import { SingleFlight } from '../concurrency/single-flight.js';
import { parsePhysicalFilename, type StorageLayout } from '../storage/layout.js';
import { discardFile } from '../storage/staged-file.js';
import { placeholderSvg } from './placeholder.js';
import { ThumbnailCacheBound } from './thumbnail.cache-bound.js';
import { thumbnailName, type ThumbnailCache } from './thumbnail.cache.js';
import type { Box, ThumbnailRenderer } from './thumbnail.renderer.js';
import type { ThumbnailMetrics } from '../metrics/asset-metrics.js';

/** What the thumbnail endpoint sends. */
export interface Thumbnail {
  contentType: 'image/jpeg' | 'image/svg+xml';
  body: Buffer;
  /** A strong entity tag of exactly these bytes, quoted. */
  etag: string;
}

/** A strong tag from the bytes themselves: a render that changes (sharp) changes the tag. */
function thumbnail(contentType: Thumbnail['contentType'], body: Buffer): Thumbnail {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
  return { contentType, body, etag };
}

/** What the thumbnail service needs. */
export interface ThumbnailDeps {
  /** Finds the asset's file, with the download's answers for unknown, corrupted and gone. */
  assets: Pick<AssetService, 'locate'>;
  /** Scratch space (`.tmp/`) for a blob that is no file here. */
  layout: StorageLayout;
  /** Where rendered JPEGs are kept: the blob port's cache (`.thumbs/` on disk or in the bucket). */
  cache: ThumbnailCache;
  renderer: ThumbnailRenderer;
  cacheEnabled: boolean;
  /** The cache's bound (`thumbnail_cache_max_bytes`), least recently used evicted. */
  cacheMaxBytes: number;
  logger: Pick<Logger, 'warn'>;
  /** Resizes at once; defaults to the number of cores. */
  concurrency?: number;
  /** Cache hits and misses, renders and their time, for `/metrics`. */
  metrics?: ThumbnailMetrics;
}

function extensionOf(filename: string): string {
  return (parsePhysicalFilename(filename)?.ext ?? path.posix.extname(filename).slice(1)) || 'bin';
}

/**
 * Thumbnails: placeholders for what is not a picture, JPEGs for images, made once per
 * (hash, box) at a time, with a bounded number of resizes running, cached when enabled.
 */
export class ThumbnailService {
  readonly #flights = new SingleFlight<string, Buffer | undefined>();
  readonly #limiter: Limiter;
  readonly #bound: ThumbnailCacheBound;

  constructor(private readonly deps: ThumbnailDeps) {
    this.#bound = new ThumbnailCacheBound(deps.cache, deps.cacheMaxBytes);
    this.#limiter = new Limiter(deps.concurrency ?? Math.max(1, os.availableParallelism()));
  }

  /** The thumbnail of one asset fitting `box`; 404 unknown, 500 corrupted or missing. */
  async get(hash: string, box: Box): Promise<Thumbnail> {
    const asset = await this.deps.assets.locate(hash);
    const { record, filename } = asset;
    const placeholder = () =>
      thumbnail('image/svg+xml', placeholderSvg(extensionOf(filename), box));
    if (!record.mime_type.toLowerCase().startsWith('image/')) return placeholder();

    const cached = thumbnailName(hash, box);
    // The cache is read inside the flight too: a request that missed it while another was
    // rendering would otherwise render a second time once that flight had ended.
    const jpeg = await this.#flights.do(cached, () => this.#cachedOrRendered(asset, cached, box));
    return jpeg ? thumbnail('image/jpeg', jpeg) : placeholder();
  }

  async #cachedOrRendered(
    asset: LocatedAsset,
    cached: string,
    box: Box,
  ): Promise<Buffer | undefined> {
    if (this.deps.cacheEnabled) {
      const hit = await this.deps.cache.readCached(cached);
      if (hit) {
        this.deps.metrics?.cacheHit();
        await this.#bound.used(cached, hit.length);
        return hit;
      }
      this.deps.metrics?.cacheMiss();
    }
    const jpeg = await this.#limiter.run(() => this.#render(asset, box));
    if (jpeg && this.deps.cacheEnabled && this.#bound.fits(jpeg.length)) {
      // A cache that cannot be written costs speed, not correctness: serve the bytes anyway.
      await this.deps.cache.writeCached(cached, jpeg).then(
        () => this.#bound.added(cached, jpeg.length),
        (err: unknown) => this.deps.logger.warn({ err }, 'could not cache thumbnail'),
      );
    }
    return jpeg;
  }

  /** The renderer reads files: a blob that is no file here (S3) is fetched to scratch first. */
  async #render(asset: LocatedAsset, box: Box): Promise<Buffer | undefined> {
    const started = performance.now();
    const jpeg = await this.#renderFile(asset, box);
    if (jpeg) this.deps.metrics?.rendered((performance.now() - started) / 1000);
    return jpeg;
  }

  async #renderFile(asset: LocatedAsset, box: Box): Promise<Buffer | undefined> {
    if (asset.absolutePath !== undefined) return this.deps.renderer.render(asset.absolutePath, box);
    const scratch = path.join(this.deps.layout.tmp, `render-${randomBytes(8).toString('hex')}`);
    try {
      await pipeline(await asset.open(), fs.createWriteStream(scratch, { flags: 'wx' }));
      return await this.deps.renderer.render(scratch, box);
    } finally {
      await discardFile(scratch);
    }
  }
}
