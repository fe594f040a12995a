import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { createLogger } from '@svc/envelope';
import { describeS3 } from '@svc/testing';
import request from 'supertest';
import type { App } from '../src/app.js';
import { createS3Client } from '../src/storage/s3/s3-client.js';
import { BlobWatch } from '../src/verifier/blob-watch.js';
import type { Verifier } from '../src/verifier/verifier.service.js';
import { ingestFile } from './asset-helpers.js';
import { testS3Settings } from './s3-bucket.js';
import { useS3Blobs, useTestApp } from './test-app.js';

const BASE = '/api/v1/can/0';
const logger = createLogger('asset-store-test', process.env.TEST_LOG_LEVEL ?? 'silent');

describeS3('the verifier on S3 (contract: scrub by streaming, watch by listing)', (s3) => {
  useS3Blobs(s3);
  const t = useTestApp('verifier_s3', { admin_token: 'admin' });
  let app: App;
  let verifier: Verifier;
  beforeAll(() => {
    ({ app } = t);
    ({ verifier } = t.runtime.services);
  });

  const isCorrupted = async (hash: string) =>
    (
      (await request(app).get(`${BASE}/asset/${hash}/meta`).expect(200)).body as {
        data: { is_corrupted: boolean };
      }
    ).data.is_corrupted;

  /** Changes the bucket as someone else would: straight through S3, not the service. */
  async function behindItsBack(
    change: (client: ReturnType<typeof createS3Client>, bucket: string) => Promise<unknown>,
  ) {
    const client = createS3Client(testS3Settings(s3, t.bucket!));
    try {
      await change(client, t.bucket!);
    } finally {
      client.destroy();
    }
  }

  it('notices, by listing, objects replaced or deleted behind its back and flags them', async () => {
    const kept = await ingestFile(app, 'kept as is', 'k.txt');
    const altered = await ingestFile(app, 'original bytes', 'a.txt');
    const deleted = await ingestFile(app, 'soon gone', 'd.txt');
    const checked: string[][] = [];
    const watch = new BlobWatch(
      t.blobs,
      async (names) => {
        checked.push([...names].sort());
        await verifier.verifyPaths(names);
      },
      logger,
    );
    await watch.poll();
    await behindItsBack(async (client, bucket) => {
      await client.send(
        new PutObjectCommand({ Bucket: bucket, Key: altered.filename, Body: 'altered bytes!' }),
      );
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: deleted.filename }));
    });
    await watch.poll();
    await watch.stop();
    expect(checked).toEqual([[altered.filename, deleted.filename].sort()]);
    expect(await isCorrupted(kept.hash)).toBe(false);
    expect(await isCorrupted(altered.hash)).toBe(true);
    expect(await isCorrupted(deleted.hash)).toBe(true);
    await expect(t.blobs.readAttributes(altered.filename)).resolves.toMatchObject({
      is_corrupted: true,
    });
  });

  it('scrubs by streaming every object, and clears the flag once the content is back', async () => {
    const content = 'scrubbed content';
    const { hash, filename } = await ingestFile(app, content, 's.txt');
    await behindItsBack((client, bucket) =>
      client.send(new PutObjectCommand({ Bucket: bucket, Key: filename, Body: 'rot' })),
    );
    const first = await request(app)
      .post(`${BASE}/admin/verify`)
      .set('Authorization', 'Bearer admin')
      .expect(200);
    expect((first.body as { data: { corrupted: number } }).data.corrupted).toBeGreaterThan(0);
    expect(await isCorrupted(hash)).toBe(true);
    await request(app).get(`${BASE}/asset/${hash}`).expect(500);
    await behindItsBack((client, bucket) =>
      client.send(new PutObjectCommand({ Bucket: bucket, Key: filename, Body: content })),
    );
    await request(app)
      .post(`${BASE}/admin/verify`)
      .set('Authorization', 'Bearer admin')
      .expect(200);
    expect(await isCorrupted(hash)).toBe(false);
    const res = await request(app).get(`${BASE}/asset/${hash}`).expect(200);
    expect(res.text).toBe(content);
  });
});
