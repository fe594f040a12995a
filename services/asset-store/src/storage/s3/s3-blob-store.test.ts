import { randomBytes } from 'node:crypto';
import {
  CreateMultipartUploadCommand,
  DeleteBucketCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { describeS3 } from '@svc/testing';
import { blobStoreContract } from '../blob-store.contract.js';
import { createS3Client, deleteObjectsUnder } from './s3-client.js';
import { S3BlobStore } from './s3-blob-store.js';
import { physicalFilename } from '../layout.js';

describeS3('S3', (s3) => {
  const settings = (bucket: string, prefix: string) => ({
    bucket,
    prefix,
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: s3.forcePathStyle,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });

  /** A store on a bucket of its own, created by the store (contract); emptied and dropped after. */
  async function s3Subject(prefix: string, bucket = `blob-test-${randomBytes(6).toString('hex')}`) {
    const { store, aborted } = await S3BlobStore.open(settings(bucket, prefix));
    const client = createS3Client(settings(bucket, prefix));
    return {
      store,
      client,
      bucket,
      aborted,
      close: async () => {
        store.close();
        await deleteObjectsUnder(client, bucket, '');
        await client.send(new DeleteBucketCommand({ Bucket: bucket }));
        client.destroy();
      },
    };
  }

  blobStoreContract('S3 at the bucket root', () => s3Subject(''));
  blobStoreContract('S3 under a prefix', () => s3Subject('assets/'));

  describe('S3 layout (contract: object storage)', () => {
    let subject: Awaited<ReturnType<typeof s3Subject>>;
    beforeEach(async () => {
      subject = await s3Subject('p/');
    });
    afterEach(() => subject.close());

    async function putAsset(description: string) {
      const staged = await subject.store.stage(1_763_700_000_001, [Buffer.from('content')]);
      const attrs = {
        hash: staged.hash,
        timestamp: staged.timestamp,
        mime_type: 'text/plain',
        tags: ['x'],
        description,
        is_trashed: false,
        is_corrupted: false,
        content_sha256: staged.sha256,
      };
      const name = physicalFilename({ ...staged, tags: attrs.tags, ext: 'txt' });
      await subject.store.place(staged, name, attrs).durable;
      return { name, attrs };
    }

    it('keeps the attributes as x-amz-meta-can-<key> metadata of the object <prefix><name>', async () => {
      const { name, attrs } = await putAsset('plain words');
      const head = await subject.client.send(
        new HeadObjectCommand({ Bucket: subject.bucket, Key: `p/${name}` }),
      );
      // Gateways may hand `content_sha256` back as `content-sha256`.
      const metadata = Object.fromEntries(
        Object.entries(head.Metadata ?? {}).map(([k, v]) => [k.replace(/_/g, '-'), v]),
      );
      expect(metadata).toEqual({
        'can-hash': attrs.hash,
        'can-timestamp': String(attrs.timestamp),
        'can-mime-type': 'text/plain',
        'can-tags': '["x"]',
        'can-description': 'plain words',
        'can-is-trashed': 'false',
        'can-content-sha256': attrs.content_sha256,
      });
      expect(head.ContentType).toBe('text/plain');
    });

    it('puts a set object metadata cannot carry in <prefix>.meta/<name>.json', async () => {
      const { name, attrs } = await putAsset('zwei\nZeilen, ü');
      const got = await subject.client.send(
        new GetObjectCommand({ Bucket: subject.bucket, Key: `p/.meta/${name}.json` }),
      );
      expect(JSON.parse(await got.Body!.transformToString())).toEqual(attrs);
      await expect(subject.store.readAttributes(name)).resolves.toEqual(attrs);
    });

    it('aborts unfinished multipart uploads and removes staged leftovers at open', async () => {
      const { client, bucket } = subject;
      await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'p/.tmp/x/1-a' }));
      await client.send(
        new PutObjectCommand({ Bucket: bucket, Key: 'p/.tmp/x/2-b', Body: 'left over' }),
      );
      // Server clocks count in whole seconds: the leftovers must be older than the open.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const reopened = await s3Subject('p/', bucket);
      reopened.store.close();
      expect(reopened.aborted).toBe(1);
      const uploads = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
      expect(uploads.Uploads ?? []).toEqual([]);
      expect(await deleteObjectsUnder(client, bucket, 'p/.tmp/')).toBe(0);
    });

    it('leaves the staging of an instance still present alone at open, and sweeps it once gone', async () => {
      const { client, bucket } = subject;
      const live = new Set(['instance-a', 'instance-b']);
      const owner = (id: string) => ({
        id,
        isGone: (tag: string) => Promise.resolve(!live.has(tag)),
      });
      const a = await S3BlobStore.open(settings(bucket, 'p/'), owner('instance-a'));
      // A's ingest in flight: its content staged (past one part, so in the bucket) and a
      // multipart upload still open under its tag.
      const staged = await a.store.stage(1_763_700_000_001, [Buffer.alloc((5 << 20) + 1, 7)]);
      expect(staged.ref).toMatch(/^p\/\.tmp\/instance-a\//);
      await client.send(
        new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'p/.tmp/instance-a/2-b' }),
      );
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const b = await S3BlobStore.open(settings(bucket, 'p/'), owner('instance-b'));
      b.store.close();
      expect({ aborted: b.aborted, swept: b.swept }).toEqual({ aborted: 0, swept: 0 });
      await client.send(new HeadObjectCommand({ Bucket: bucket, Key: staged.ref }));
      live.delete('instance-a');
      const c = await S3BlobStore.open(settings(bucket, 'p/'), owner('instance-c'));
      c.store.close();
      a.store.close();
      expect({ aborted: c.aborted, swept: c.swept }).toEqual({ aborted: 1, swept: 1 });
      const uploads = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
      expect(uploads.Uploads ?? []).toEqual([]);
      expect(await deleteObjectsUnder(client, bucket, 'p/.tmp/')).toBe(0);
    });
  });
});
