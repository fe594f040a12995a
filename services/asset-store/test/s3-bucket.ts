import { randomBytes } from 'node:crypto';
import {
  DeleteBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { testS3, type TestS3 } from '@svc/testing';
import {
  createS3Client,
  deleteObjectsUnder,
  isNotFound,
  listObjectsUnder,
  type S3Settings,
} from '../src/storage/s3/s3-client.js';
import { S3BlobStore } from '../src/storage/s3/s3-blob-store.js';

/** The store's settings for a bucket on the test run's S3. */
export function testS3Settings(s3: TestS3, bucket: string, prefix = ''): S3Settings {
  return {
    bucket,
    prefix,
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: s3.forcePathStyle,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  };
}

/**
 * A store on a fresh bucket of its own (the store creates it, as the contract says), and
 * how to empty and drop that bucket afterwards, so a shared S3 server keeps nothing.
 */
export async function openTestBucket(
  s3: TestS3,
  prefix = '',
): Promise<{ store: S3BlobStore; bucket: string; close(): Promise<void> }> {
  const bucket = `asset-store-${randomBytes(6).toString('hex')}`;
  const settings = testS3Settings(s3, bucket, prefix);
  const { store } = await S3BlobStore.open(settings);
  return {
    store,
    bucket,
    close: async () => {
      store.close();
      const client = createS3Client(settings);
      await deleteObjectsUnder(client, bucket, '');
      await client.send(new DeleteBucketCommand({ Bucket: bucket }));
      client.destroy();
    },
  };
}

/**
 * What the run's S3 holds under `prefix` of `bucket`, read straight from S3 (not through the
 * service): each object's key without the prefix, and its bytes.
 */
export async function objectsUnder(bucket: string, prefix: string): Promise<Map<string, Buffer>> {
  const client = createS3Client(testS3Settings(testS3()!, bucket));
  try {
    const found = new Map<string, Buffer>();
    for await (const { key } of listObjectsUnder(client, bucket, prefix)) {
      // Deleted between the listing and the read (an eviction under way): not there.
      const got = await client
        .send(new GetObjectCommand({ Bucket: bucket, Key: key }))
        .catch((err: unknown) => {
          if (isNotFound(err)) return undefined;
          throw err;
        });
      if (got) {
        found.set(key.slice(prefix.length), Buffer.from(await got.Body!.transformToByteArray()));
      }
    }
    return found;
  } finally {
    client.destroy();
  }
}

/** Deletes one object or every object under a prefix, straight through S3, behind the service's back. */
export async function deleteBehindItsBack(
  bucket: string,
  key: string,
  under = false,
): Promise<void> {
  const client = createS3Client(testS3Settings(testS3()!, bucket));
  try {
    if (under) await deleteObjectsUnder(client, bucket, key);
    else await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
  } finally {
    client.destroy();
  }
}

/** The sizes of the objects under `prefix` of `bucket`, from one listing, by key without it. */
export async function objectSizesUnder(
  bucket: string,
  prefix: string,
): Promise<Map<string, number>> {
  const client = createS3Client(testS3Settings(testS3()!, bucket));
  try {
    const found = new Map<string, number>();
    for await (const { key, size } of listObjectsUnder(client, bucket, prefix)) {
      found.set(key.slice(prefix.length), size);
    }
    return found;
  } finally {
    client.destroy();
  }
}

/** One object as S3 holds it, read straight from S3: its bytes and metadata, or undefined. */
export async function objectOf(
  bucket: string,
  key: string,
): Promise<{ body: Buffer; metadata: Record<string, string> } | undefined> {
  const client = createS3Client(testS3Settings(testS3()!, bucket));
  try {
    const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return {
      body: Buffer.from(await got.Body!.transformToByteArray()),
      metadata: got.Metadata ?? {},
    };
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  } finally {
    client.destroy();
  }
}

/** Whether `key` exists, by a HEAD straight to S3. */
export async function objectExists(bucket: string, key: string): Promise<boolean> {
  const client = createS3Client(testS3Settings(testS3()!, bucket));
  try {
    await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  } finally {
    client.destroy();
  }
}

/** Puts `key` with `body` and no metadata, straight through S3, behind the service's back. */
export async function putBehindItsBack(
  bucket: string,
  key: string,
  body: string | Buffer,
): Promise<void> {
  const client = createS3Client(testS3Settings(testS3()!, bucket));
  try {
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
  } finally {
    client.destroy();
  }
}
