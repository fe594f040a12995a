import { createHash } from 'node:crypto';
import {
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  paginateListObjectsV2,
} from '@aws-sdk/client-s3';
import { describeS3 } from '@svc/testing';
import request from 'supertest';
import { createS3Client } from '../src/storage/s3/s3-client.js';
import { expectedHash, ingestData, ingestFile, rowCount } from './asset-helpers.js';
import { testS3Settings } from './s3-bucket.js';
import { useS3Blobs, useTestApp, type TestApp } from './test-app.js';

const BASE = '/api/v1/can/0';

const binary = (res: request.Response, cb: (err: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => cb(null, Buffer.concat(chunks)));
};

const sha256 = (content: Buffer | string) => createHash('sha256').update(content).digest('hex');

describeS3('ingest on S3 (contract: object storage)', (s3) => {
  useS3Blobs(s3);
  const t = useTestApp('ingest_s3', { max_upload_bytes: 6 << 20, admin_token: 'admin' });

  /** What S3 itself holds: every key of the app's bucket, and its unfinished uploads. */
  async function bucketState(app: TestApp) {
    const bucket = app.bucket!;
    const client = createS3Client(testS3Settings(s3, bucket));
    const keys: string[] = [];
    for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket })) {
      for (const object of page.Contents ?? []) keys.push(object.Key!);
    }
    const uploads = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
    const metadata = async (key: string) =>
      (await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).Metadata;
    return {
      keys: keys.sort(),
      uploads: uploads.Uploads ?? [],
      metadata,
      close: () => client.destroy(),
    };
  }

  it('stores a file as the object <filename> with its attributes, before the row', async () => {
    const content = Buffer.from('a file on S3');
    const { timestamp, hash, filename } = await ingestFile(t.app, content, 'note.txt', {
      tags: 'one,two',
      user: 'alice',
    });
    expect(hash).toBe(expectedHash(content, timestamp));
    expect(filename).toBe(`${timestamp}_${hash}_one_two.txt`);
    const state = await bucketState(t);
    try {
      expect(state.keys).toContain(filename);
      expect(state.keys.filter((k) => k.startsWith('.tmp/'))).toEqual([]);
      const metadata = Object.fromEntries(
        Object.entries((await state.metadata(filename)) ?? {}).map(([k, v]) => [
          k.replace(/_/g, '-'),
          v,
        ]),
      );
      expect(metadata).toEqual({
        'can-hash': hash,
        'can-timestamp': String(timestamp),
        'can-mime-type': 'text/plain',
        'can-user': 'alice',
        'can-tags': '["one","two"]',
        'can-is-trashed': 'false',
        'can-content-sha256': sha256(content),
      });
    } finally {
      state.close();
    }
    const row = await t.index.db
      .selectFrom('asset')
      .select(['path', 'size', 'content_sha256'])
      .where('hash', '=', hash)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ path: filename, size: content.length, content_sha256: sha256(content) });
    const res = await request(t.app).get(`${BASE}/asset/${hash}`).expect(200);
    expect(res.text).toBe('a file on S3');
  });

  it('streams a file of several parts and serves any range of it', async () => {
    const content = Buffer.alloc(5_500_000, 7);
    content.write('start', 0);
    content.write('end', content.length - 3);
    const { hash } = await ingestFile(t.app, content, 'big.bin');
    const head = await request(t.app).head(`${BASE}/asset/${hash}`).expect(200);
    expect(head.headers['content-length']).toBe(String(content.length));
    const tail = await request(t.app)
      .get(`${BASE}/asset/${hash}`)
      .set('Range', `bytes=${content.length - 3}-`)
      .buffer(true)
      .parse(binary)
      .expect(206);
    expect(tail.body).toEqual(Buffer.from('end'));
    expect(tail.headers['content-range']).toBe(
      `bytes ${content.length - 3}-${content.length - 1}/${content.length}`,
    );
  });

  it('stores a data ingest, with UTF-8 metadata in the .meta sidecar', async () => {
    const { hash, filename } = await ingestData(t.app, {
      data: { größe: 1 },
      description: 'Grüße',
    });
    const state = await bucketState(t);
    try {
      expect(state.keys).toEqual(expect.arrayContaining([filename, `.meta/${filename}.json`]));
    } finally {
      state.close();
    }
    const meta = await request(t.app).get(`${BASE}/asset/${hash}/meta`).expect(200);
    expect((meta.body as { data: { description: string } }).data.description).toBe('Grüße');
    const res = await request(t.app).get(`${BASE}/asset/${hash}`).expect(200);
    expect(JSON.parse(res.text)).toEqual({ größe: 1 });
  });

  it('leaves no object, staged copy, upload or row of a file over the limit', async () => {
    const before = await rowCount(t);
    const earlier = await bucketState(t);
    earlier.close();
    const res = await request(t.app)
      .post(`${BASE}/ingest`)
      .attach('file', Buffer.alloc((6 << 20) + 1, 1), 'huge.bin')
      .expect(413);
    expect(res.body).toEqual({
      status: 'error',
      error: `file too large: the limit is ${6 << 20} bytes`,
    });
    const state = await bucketState(t);
    try {
      expect(state.keys).toEqual(earlier.keys);
      expect(state.uploads).toEqual([]);
    } finally {
      state.close();
    }
    expect(await rowCount(t)).toBe(before);
  });

  it('writes PATCH and trash into the object metadata', async () => {
    const { hash, filename } = await ingestFile(t.app, 'to edit', 'e.txt', { tags: 'old' });
    await request(t.app)
      .patch(`${BASE}/asset/${hash}`)
      .send({ tags: ['new'] })
      .expect(200);
    await request(t.app).delete(`${BASE}/asset/${hash}`).expect(200);
    const state = await bucketState(t);
    try {
      expect(await state.metadata(filename)).toMatchObject({
        'can-tags': '["new"]',
        'can-is-trashed': 'true',
      });
    } finally {
      state.close();
    }
    const res = await request(t.app).get(`${BASE}/asset/${hash}`).expect(200);
    expect(res.text).toBe('to edit');
  });

  it('purges an asset: object, sidecar and row go', async () => {
    const { hash, filename } = await ingestFile(t.app, 'purged', 'p.txt', { user: 'Jürgen' });
    const before = await bucketState(t);
    before.close();
    expect(before.keys).toEqual(expect.arrayContaining([filename, `.meta/${filename}.json`]));
    await request(t.app)
      .delete(`${BASE}/admin/asset/${hash}`)
      .set('Authorization', 'Bearer admin')
      .expect(200);
    const after = await bucketState(t);
    after.close();
    expect(after.keys.filter((k) => k.includes(hash))).toEqual([]);
    await request(t.app).get(`${BASE}/asset/${hash}/meta`).expect(404);
  });
});
