import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  paginateListObjectsV2,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { AssetAttributes } from './attributes.js';
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
} from './blob-store.js';
import { isInternal } from './layout.js';
import { fromObjectMetadata, toObjectMetadata } from './s3-attributes.js';
import {
  abortUnfinishedUploads,
  createS3Client,
  deleteObjectsUnder,
  ensureBucket,
  isNotFound,
  listObjectsUnder,
  type S3Settings,
} from './s3-client.js';
import { stageUpload } from './s3-staging.js';
import { parseSidecar, sidecarName } from './sidecar-attribute-store.js';
import type { SizeLimit } from './staged-file.js';

/** Staging keys are `.tmp/<this>/…`: drawn once, it tells processes apart. */
const PROCESS_TAG = randomBytes(6).toString('hex');

/** `bucket/key` for `CopySource`, each segment URL-encoded as S3 expects. */
function copySource(bucket: string, key: string): string {
  return `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * An S3 bucket (under `s3_prefix`) as a blob store. Staging streams a multipart upload to
 * `.tmp/` (lib-storage; bounded memory), hashing on the way; placing copies it server-side
 * to its final key with the attributes as object metadata (or a `.meta/` sidecar first when
 * they do not fit), so the object appears whole with its attributes, then drops the staged
 * copy. Readers prefer a sidecar when there is one, as on the file system.
 */
export class S3BlobStore implements BlobStore {
  readonly kind = 's3';

  private constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly prefix: string,
  ) {}

  /**
   * Prepares the bucket for serving: creates it when absent, aborts unfinished multipart
   * uploads and removes staged objects left by a crash (contract: at start).
   */
  static async open(
    settings: S3Settings,
    startedAt = new Date(),
  ): Promise<{ store: S3BlobStore; aborted: number; swept: number }> {
    const client = createS3Client(settings);
    await ensureBucket(client, settings.bucket);
    const aborted = await abortUnfinishedUploads(
      client,
      settings.bucket,
      settings.prefix,
      startedAt,
    );
    const swept = await deleteObjectsUnder(
      client,
      settings.bucket,
      `${settings.prefix}.tmp/`,
      startedAt,
    );
    return { store: new S3BlobStore(client, settings.bucket, settings.prefix), aborted, swept };
  }

  #key(name: string): string {
    return `${this.prefix}${name}`;
  }

  #sidecarKey(name: BlobName): string {
    return this.#key(`.meta/${sidecarName(name)}`);
  }

  stage(
    timestamp: number,
    source: AsyncIterable<Buffer> | Iterable<Buffer>,
    limit?: SizeLimit,
  ): Promise<StagedBlob> {
    const ref = this.#key(`.tmp/${PROCESS_TAG}/${timestamp}-${randomBytes(4).toString('hex')}`);
    return stageUpload({ client: this.client, bucket: this.bucket, ref }, timestamp, source, limit);
  }

  discard(staged: StagedBlob): Promise<void> {
    return this.#deleteKey(staged.ref);
  }

  place(staged: StagedBlob, name: BlobName, attrs: AssetAttributes): BlobPlacement {
    const durable = (async () => {
      const metadata = toObjectMetadata(attrs);
      // The sidecar first: once the object is there, its attributes are too.
      if (!metadata) await this.#putSidecar(name, attrs);
      await this.client.send(
        new CopyObjectCommand({
          Bucket: this.bucket,
          Key: this.#key(name),
          CopySource: copySource(this.bucket, staged.ref),
          MetadataDirective: 'REPLACE',
          Metadata: metadata ?? {},
          ContentType: attrs.mime_type,
        }),
      );
      await this.#deleteKey(staged.ref);
    })();
    return {
      name,
      durable,
      undo: async () => {
        await durable.catch(() => undefined);
        await this.delete(name).catch(() => undefined);
        await this.#deleteKey(staged.ref).catch(() => undefined);
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
        version: `${size}:${head.ETag}`,
        modifiedMs: head.LastModified?.getTime() ?? 0,
      };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async read(name: BlobName, range?: ByteRange): Promise<Readable> {
    try {
      const got = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: this.#key(name),
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
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
          version: `${size}:${object.ETag}`,
          modifiedMs: object.LastModified?.getTime() ?? 0,
        };
      }
    }
  }

  async readAttributes(name: BlobName): Promise<AssetAttributes | undefined> {
    const sidecar = await this.#getText(this.#sidecarKey(name));
    if (sidecar !== undefined) return parseSidecar(sidecar);
    try {
      const head = await this.client.send(
        new HeadObjectCommand({ Bucket: this.bucket, Key: this.#key(name) }),
      );
      return fromObjectMetadata(head.Metadata);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /**
   * A set that fits goes onto the object (a server-side copy onto itself, which keeps the
   * content and its ETag) and the sidecar, if any, goes; one that does not fit goes to the
   * sidecar, which readers prefer, leaving the object's content untouched.
   */
  async writeAttributes(name: BlobName, attrs: AssetAttributes): Promise<void> {
    const metadata = toObjectMetadata(attrs);
    if (!metadata) {
      if (!(await this.stat(name))) throw blobNotFound(name);
      await this.#putSidecar(name, attrs);
      return;
    }
    const key = this.#key(name);
    try {
      await this.client.send(
        new CopyObjectCommand({
          Bucket: this.bucket,
          Key: key,
          CopySource: copySource(this.bucket, key),
          MetadataDirective: 'REPLACE',
          Metadata: metadata,
          ContentType: attrs.mime_type,
        }),
      );
    } catch (err) {
      if (isNotFound(err)) throw blobNotFound(name);
      throw err;
    }
    await this.#deleteKey(this.#sidecarKey(name));
  }

  async delete(name: BlobName): Promise<void> {
    await this.#deleteKey(this.#sidecarKey(name));
    await this.#deleteKey(this.#key(name));
  }

  readCached(name: string): Promise<Buffer | undefined> {
    return this.#getBytes(this.#key(`.thumbs/${name}`));
  }

  /** One PUT: S3 makes an object visible only once it is whole. */
  async writeCached(name: string, content: Buffer): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: this.#key(`.thumbs/${name}`),
        Body: content,
      }),
    );
  }

  async removeCached(prefix: string): Promise<void> {
    await deleteObjectsUnder(this.client, this.bucket, this.#key(`.thumbs/${prefix}`));
  }

  async *listCached(): AsyncIterable<CachedEntry> {
    const prefix = this.#key('.thumbs/');
    for await (const o of listObjectsUnder(this.client, this.bucket, prefix)) {
      yield { name: o.key.slice(prefix.length), size: o.size, usedMs: o.modified?.getTime() ?? 0 };
    }
  }

  async #putSidecar(name: BlobName, attrs: AssetAttributes): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: this.#sidecarKey(name),
        Body: JSON.stringify(attrs),
        ContentType: 'application/json',
      }),
    );
  }

  async #getBytes(key: string): Promise<Buffer | undefined> {
    try {
      const got = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return Buffer.from(await got.Body!.transformToByteArray());
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async #getText(key: string): Promise<string | undefined> {
    return (await this.#getBytes(key))?.toString('utf8');
  }

  /** S3 deletes are idempotent: deleting what is not there succeeds. */
  async #deleteKey(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  /** Closes the client's connections. */
  close(): void {
    this.client.destroy();
  }
}
