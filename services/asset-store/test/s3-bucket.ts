import { randomBytes } from 'node:crypto';
import { DeleteBucketCommand } from '@aws-sdk/client-s3';
import type { TestS3 } from '@svc/testing';
import { createS3Client, deleteObjectsUnder, type S3Settings } from '../src/storage/s3-client.js';
import { S3BlobStore } from '../src/storage/s3-blob-store.js';

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
