import { createHash } from 'node:crypto';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { describeS3 } from '@svc/testing';
import request from 'supertest';
import { createS3Client } from '../src/storage/s3/s3-client.js';
import { expectedHash, ingestFile } from './asset-helpers.js';
import { testS3Settings } from './s3-bucket.js';
import { useS3Blobs, useTestApp } from './test-app.js';

const BASE = '/api/v1/can/0';
const auth = { Authorization: 'Bearer admin' };

describeS3('rebuild on S3 (contract: rebuild lists the bucket)', (s3) => {
  useS3Blobs(s3);
  const t = useTestApp('rebuild_s3', { admin_token: 'admin' });

  const meta = async (hash: string) =>
    ((await request(t.app).get(`${BASE}/asset/${hash}/meta`).expect(200)).body as { data: object })
      .data;

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

  it('rebuilds a lost index from the objects: metadata, sidecars and bare objects', async () => {
    const plain = await ingestFile(t.app, 'plain', 'p.txt', { tags: 'a,b', user: 'u' });
    const utf8 = await ingestFile(t.app, 'umlauts', 'u.txt', { description: 'Grüße' });
    const before = [await meta(plain.hash), await meta(utf8.hash)];
    // An object put there by hand under a physical name, with no attributes at all.
    const timestamp = 1_763_700_000_000;
    const bare = Buffer.from('bare object');
    const bareHash = expectedHash(bare, timestamp);
    const bareName = `${timestamp}_${bareHash}_x.txt`;
    await behindItsBack((client, bucket) =>
      client.send(new PutObjectCommand({ Bucket: bucket, Key: bareName, Body: bare })),
    );

    await t.index.db.deleteFrom('asset').execute();
    const res = await request(t.app).post(`${BASE}/admin/rebuild?mode=hard`).set(auth).expect(200);
    expect(res.body).toEqual({
      status: 'success',
      data: { mode: 'hard', scanned: 3, indexed: 3, errors: 0 },
    });
    expect([await meta(plain.hash), await meta(utf8.hash)]).toEqual(before);
    expect(await meta(bareHash)).toEqual({
      hash: bareHash,
      mime_type: 'text/plain',
      tags: ['x'],
      timestamp,
      is_trashed: false,
      is_corrupted: false,
      size: bare.length,
      width: null,
      height: null,
      taken_at: null,
    });
    // Written back onto the object, so the next rebuild reads them instead of hashing.
    await expect(t.blobs.readAttributes(bareName)).resolves.toMatchObject({
      hash: bareHash,
      content_sha256: createHash('sha256').update(bare).digest('hex'),
    });
  });

  it('flags, on a soft rebuild, an asset whose object is gone', async () => {
    const gone = await ingestFile(t.app, 'vanishing object', 'v.txt');
    await behindItsBack((client, bucket) =>
      client.send(new DeleteObjectCommand({ Bucket: bucket, Key: gone.filename })),
    );
    await request(t.app).post(`${BASE}/admin/rebuild`).set(auth).expect(200);
    expect(await meta(gone.hash)).toMatchObject({ is_corrupted: true });
  });
});
