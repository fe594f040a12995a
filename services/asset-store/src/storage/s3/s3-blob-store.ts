import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  paginateListObjectsV2,
  type S3Client,
} from '@aws-sdk/client-s3';
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
  type DownloadResponse,
  type ListOptions,
  type StagedBlob,
} from '../blob-store.js';
import { isInternal } from '../layout.js';
import { toObjectMetadata } from './s3-attributes.js';
import { S3AttributeObjects } from './s3-attribute-objects.js';
import { S3DerivativeCache } from './s3-derivative-cache.js';
import {
  createS3Client,
  DEFAULT_S3_TIMEOUT_MS,
  ensureBucket,
  isNotFound,
  type S3Settings,
} from './s3-client.js';
import { presignDownload, readSpanDirect } from './s3-direct-read.js';
import { copySource, objectVersion } from './s3-keys.js';
import { S3Leftovers } from './s3-leftovers.js';
import { S3Reachability, s3Where } from './s3-reachability.js';
import { sweepLeftovers, type StagingOwner } from './s3-sweep.js';
import { stageUpload } from './s3-staging.js';
import type { PendingTimestamp, SizeLimit } from '../staged-file.js';

/**
 * An S3 bucket (under `s3_prefix`) as a blob store. Staging streams a multipart upload to
 * `.tmp/` (reused part buffers; bounded memory), hashing on the way; placing copies it server-side
 * to its final key with the attributes as object metadata (or a `.meta/` sidecar first when
 * they do not fit), so the object appears whole with its attributes, then drops the staged
 * copy. Readers prefer a sidecar when there is one, as on the file system.
 */
export class S3BlobStore implements BlobStore {
  readonly kind = 's3';
  /** Removals an outage held up, retried until S3 answers. */
  readonly leftovers: S3Leftovers;
  readonly #attributes: S3AttributeObjects;
  readonly #cache: S3DerivativeCache;

  private constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly prefix: string,
    /** Whether S3 can serve now, from every call's outcome (`/healthz`). */
    readonly reachability: S3Reachability,
    /** How long S3 may stay silent mid-call (`s3_timeout_seconds`); direct reads use it too. */
    private readonly timeoutMs: number,
    /** Staging keys are `.tmp/<tag>/...`: the instance's presence id, or one drawn here. */
    private readonly tag = randomBytes(6).toString('hex'),
  ) {
    this.leftovers = new S3Leftovers(client, bucket);
    this.#attributes = new S3AttributeObjects({ client, bucket, prefix });
    this.#cache = new S3DerivativeCache({ client, bucket, prefix });
  }

  /**
   * Prepares the bucket for serving: creates it when absent, aborts unfinished multipart
   * uploads and removes staged objects a crash left (contract: at start). With `owner`
   * (several instances on one bucket), staging is tagged with `owner.id`, and the staging of
   * an instance that still holds its presence is left alone: it may be an ingest in flight.
   */
  static async open(
    settings: S3Settings,
    owner?: StagingOwner,
    startedAt = new Date(),
  ): Promise<{ store: S3BlobStore; aborted: number; swept: number }> {
    const { bucket, prefix } = settings;
    const reachability = new S3Reachability({
      where: s3Where(settings),
      probe: async (abortSignal) => {
        await client.send(new HeadBucketCommand({ Bucket: bucket }), { abortSignal });
      },
    });
    const client = createS3Client(settings, reachability);
    try {
      await ensureBucket(client, bucket);
      const { aborted, swept } = await sweepLeftovers(client, settings, owner, startedAt);
      const timeoutMs = settings.timeoutMs ?? DEFAULT_S3_TIMEOUT_MS;
      const store = new S3BlobStore(client, bucket, prefix, reachability, timeoutMs, owner?.id);
      return { store, aborted, swept };
    } catch (err) {
      // A start that tries again opens a client of its own.
      client.destroy();
      throw err;
    }
  }

  #key(name: string): string {
    return this.#attributes.key(name);
  }

  async stage(
    pending: PendingTimestamp,
    source: AsyncIterable<Buffer> | Iterable<Buffer>,
    limit?: SizeLimit,
  ): Promise<StagedBlob> {
    const timestamp = await pending;
    const ref = this.#key(`.tmp/${this.tag}/${timestamp}-${randomBytes(4).toString('hex')}`);
    const target = { client: this.client, bucket: this.bucket, ref, leftovers: this.leftovers };
    return stageUpload(target, timestamp, source, limit);
  }

  async readStagedHead(staged: StagedBlob, maxBytes: number): Promise<Buffer> {
    if (staged.bytes) return staged.bytes.subarray(0, maxBytes);
    if (staged.size === 0) return Buffer.alloc(0);
    const got = await this.client.send(
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: staged.ref,
        Range: `bytes=0-${Math.min(maxBytes, staged.size) - 1}`,
      }),
    );
    return Buffer.from(await got.Body!.transformToByteArray());
  }

  /** Never fails: while S3 is unreachable the staged object is removed later. */
  async discard(staged: StagedBlob): Promise<void> {
    if (staged.bytes) return;
    await this.leftovers.removeStaged(staged.ref);
  }

  place(staged: StagedBlob, name: BlobName, attrs: AssetAttributes): BlobPlacement {
    const written = (async () => {
      const metadata = toObjectMetadata(attrs);
      // The sidecar first: once the object is there, its attributes are too.
      if (!metadata) await this.#attributes.putSidecar(name, attrs);
      const object = {
        Bucket: this.bucket,
        Key: this.#key(name),
        Metadata: metadata ?? {},
        ContentType: attrs.mime_type,
      };
      if (staged.bytes) {
        const put = await this.client.send(new PutObjectCommand({ ...object, Body: staged.bytes }));
        return objectVersion(staged.size, put.ETag);
      }
      const copy = await this.client.send(
        new CopyObjectCommand({
          ...object,
          CopySource: copySource(this.bucket, staged.ref),
          MetadataDirective: 'REPLACE',
        }),
      );
      await this.#attributes.deleteKey(staged.ref);
      return objectVersion(staged.size, copy.CopyObjectResult?.ETag);
    })();
    const durable = written.then(() => undefined);
    return {
      name,
      durable,
      // The copy's own answer names the object written from the bytes staged and hashed.
      verifiedVersion: written,
      // The copy may have succeeded with its answer lost: the object goes too, now or
      // once S3 is back (its row was never committed).
      undo: async () => {
        await durable.catch(() => undefined);
        await this.leftovers.remove(`asset:${name}`, () => this.delete(name));
        await this.discard(staged);
      },
    };
  }

  async stat(name: BlobName): Promise<BlobStat | undefined> {
    try {
      const head = await this.client.send(
        new HeadObjectCommand({ Bucket: this.bucket, Key: this.#key(name) }),
      );
      const size = head.ContentLength ?? 0;
      return {
        size,
        version: objectVersion(size, head.ETag),
        modifiedMs: head.LastModified?.getTime() ?? 0,
      };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  presignedDownload(name: BlobName, response: DownloadResponse, seconds: number): Promise<string> {
    return presignDownload(this.client, this.bucket, this.#key(name), response, seconds);
  }

  async read(name: BlobName, range?: ByteRange): Promise<Readable> {
    const Key = this.#key(name);
    const direct = await readSpanDirect(this.client, this.bucket, Key, range, this.timeoutMs);
    if (direct) return direct;
    try {
      const Range = range ? `bytes=${range.start}-${range.end}` : undefined;
      const got = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key, Range }));
      return got.Body as Readable;
    } catch (err) {
      if (isNotFound(err)) throw blobNotFound(name);
      throw err;
    }
  }

  async *list({ topLevel = false, accept }: ListOptions = {}): AsyncIterable<BlobEntry> {
    const pages = paginateListObjectsV2(
      { client: this.client },
      // With a delimiter, deeper keys fold into CommonPrefixes, which are skipped.
      { Bucket: this.bucket, Prefix: this.prefix, Delimiter: topLevel ? '/' : undefined },
    );
    for await (const page of pages) {
      for (const object of page.Contents ?? []) {
        if (!object.Key) continue;
        const name = object.Key.slice(this.prefix.length);
        if (name === '' || name.endsWith('/') || isInternal(name)) continue;
        if (accept && !accept(name)) continue;
        const size = object.Size ?? 0;
        yield {
          name,
          size,
          version: objectVersion(size, object.ETag),
          modifiedMs: object.LastModified?.getTime() ?? 0,
        };
      }
    }
  }

  readAttributes(name: BlobName): Promise<AssetAttributes | undefined> {
    return this.#attributes.read(name);
  }

  writeAttributes(name: BlobName, attrs: AssetAttributes): Promise<void> {
    return this.#attributes.write(name, attrs, async () => (await this.stat(name)) !== undefined);
  }

  async delete(name: BlobName): Promise<void> {
    await this.#attributes.deleteKey(this.#attributes.sidecarKey(name));
    await this.#attributes.deleteKey(this.#key(name));
  }

  readCached(name: string): Promise<Buffer | undefined> {
    return this.#cache.read(name);
  }

  writeCached(name: string, content: Buffer): Promise<void> {
    return this.#cache.write(name, content);
  }

  removeCached(prefix: string): Promise<void> {
    return this.#cache.remove(prefix);
  }

  listCached(): AsyncIterable<CachedEntry> {
    return this.#cache.list();
  }

  /** Closes the client's connections. */
  close(): void {
    this.leftovers.close();
    this.client.destroy();
  }
}
