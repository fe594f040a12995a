import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { CachedEntry } from '../blob-store.js';
import { deleteObjectsUnder, getObjectBytes, listObjectsUnder } from './s3-client.js';
import type { S3Place } from './s3-attribute-objects.js';

/** The thumbnail cache on S3: `<prefix>.thumbs/<name>`. */
export class S3DerivativeCache {
  readonly #prefix: string;

  constructor(private readonly at: S3Place) {
    this.#prefix = `${at.prefix}.thumbs/`;
  }

  read(name: string): Promise<Buffer | undefined> {
    return getObjectBytes(this.at.client, this.at.bucket, this.#prefix + name);
  }

  /** One PUT: S3 makes an object visible only once it is whole. */
  async write(name: string, content: Buffer): Promise<void> {
    const { client, bucket } = this.at;
    await client.send(
      new PutObjectCommand({ Bucket: bucket, Key: this.#prefix + name, Body: content }),
    );
  }

  async remove(prefix: string): Promise<void> {
    await deleteObjectsUnder(this.at.client, this.at.bucket, this.#prefix + prefix);
  }

  async *list(): AsyncIterable<CachedEntry> {
    for await (const o of listObjectsUnder(this.at.client, this.at.bucket, this.#prefix)) {
      yield {
        name: o.key.slice(this.#prefix.length),
        size: o.size,
        usedMs: o.modified?.getTime() ?? 0,
      };
    }
  }
}
