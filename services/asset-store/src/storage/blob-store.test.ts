import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DeleteBucketCommand } from '@aws-sdk/client-s3';
import { describeS3 } from '@svc/testing';
import { openAssetStorage } from './asset-storage.js';
import { blobStoreContract } from './blob-store.contract.js';
import { FsBlobStore } from './fs-blob-store.js';
import { createS3Client, deleteObjectsUnder } from './s3-client.js';
import { S3BlobStore } from './s3-blob-store.js';

const quiet = { warn: () => undefined, info: () => undefined };

blobStoreContract('file system', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'blob-contract-'));
  const storage = await openAssetStorage(root, quiet);
  return {
    store: new FsBlobStore(storage),
    close: () => fs.promises.rm(root, { recursive: true, force: true }),
  };
});

describeS3('S3', (s3) => {
  const settings = (bucket: string, prefix: string) => ({
    bucket,
    prefix,
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: s3.forcePathStyle,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });

  /** A bucket of its own per test, created by the store (contract), emptied and dropped after. */
  function s3Subject(prefix: string) {
    return async () => {
      const bucket = `blob-contract-${randomBytes(6).toString('hex')}`;
      const { store } = await S3BlobStore.open(settings(bucket, prefix));
      return {
        store,
        close: async () => {
          store.close();
          const client = createS3Client(settings(bucket, prefix));
          await deleteObjectsUnder(client, bucket, '');
          await client.send(new DeleteBucketCommand({ Bucket: bucket }));
          client.destroy();
        },
      };
    };
  }

  blobStoreContract('S3 at the bucket root', s3Subject(''));
  blobStoreContract('S3 under a prefix', s3Subject('assets/'));
});
