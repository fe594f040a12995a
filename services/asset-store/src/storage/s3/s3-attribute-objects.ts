import {
  CopyObjectCommand,
  DeleteObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { AssetAttributes } from '../attributes.js';
import { blobNotFound, type BlobName } from '../blob-store.js';
import { parseSidecar, sidecarName } from '../sidecar-format.js';
import { fromObjectMetadata, toObjectMetadata } from './s3-attributes.js';
import { getObjectBytes, isNotFound } from './s3-client.js';
import { copySource } from './s3-keys.js';

/** Where an object lives: its bucket and the prefix its keys start with. */
export interface S3Place {
  client: S3Client;
  bucket: string;
  prefix: string;
}

/**
 * An asset's attributes on S3: object metadata when the set fits, else a sidecar
 * `<prefix>.meta/<name>.json`, which readers prefer (as on file systems without xattrs).
 */
export class S3AttributeObjects {
  constructor(private readonly at: S3Place) {}

  /** The object's own key. */
  key(name: string): string {
    return `${this.at.prefix}${name}`;
  }

  sidecarKey(name: BlobName): string {
    return this.key(`.meta/${sidecarName(name)}`);
  }

  async read(name: BlobName): Promise<AssetAttributes | undefined> {
    const { client, bucket } = this.at;
    const sidecar = (await getObjectBytes(client, bucket, this.sidecarKey(name)))?.toString('utf8');
    if (sidecar !== undefined) return parseSidecar(sidecar);
    try {
      const head = await client.send(
        new HeadObjectCommand({ Bucket: bucket, Key: this.key(name) }),
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
   * sidecar, which readers prefer, leaving the object's content untouched. `exists` is asked
   * before a sidecar is written for an object that may be gone.
   */
  async write(
    name: BlobName,
    attrs: AssetAttributes,
    exists: () => Promise<boolean>,
  ): Promise<void> {
    const metadata = toObjectMetadata(attrs);
    if (!metadata) {
      if (!(await exists())) throw blobNotFound(name);
      await this.putSidecar(name, attrs);
      return;
    }
    const key = this.key(name);
    try {
      await this.at.client.send(
        new CopyObjectCommand({
          Bucket: this.at.bucket,
          Key: key,
          CopySource: copySource(this.at.bucket, key),
          MetadataDirective: 'REPLACE',
          Metadata: metadata,
          ContentType: attrs.mime_type,
        }),
      );
    } catch (err) {
      if (isNotFound(err)) throw blobNotFound(name);
      throw err;
    }
    await this.deleteKey(this.sidecarKey(name));
  }

  async putSidecar(name: BlobName, attrs: AssetAttributes): Promise<void> {
    await this.at.client.send(
      new PutObjectCommand({
        Bucket: this.at.bucket,
        Key: this.sidecarKey(name),
        Body: JSON.stringify(attrs),
        ContentType: 'application/json',
      }),
    );
  }

  /** S3 deletes are idempotent: deleting what is not there succeeds. */
  async deleteKey(key: string): Promise<void> {
    await this.at.client.send(new DeleteObjectCommand({ Bucket: this.at.bucket, Key: key }));
  }
}
