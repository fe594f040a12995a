import { randomBytes } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { describeS3, TcpProxy } from '@svc/testing';
import request from 'supertest';
import { createS3Client } from '../src/storage/s3-client.js';
import { ingestFile, listen, type Ingested } from './asset-helpers.js';
import { testS3Settings } from './s3-bucket.js';
import { bucketState, ingestInTwoHalves, type Answer } from './s3-faults-helpers.js';
import { createTestApp, useS3Blobs, type TestApp } from './test-app.js';

const BASE = '/api/v1/can/0';
const STORAGE_DOWN = {
  status: 'error',
  error: 'the storage is unavailable: try again shortly',
};

const binary = (res: request.Response, cb: (err: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => cb(null, Buffer.concat(chunks)));
};

/** Every asset's path the index holds, trashed or not. */
async function indexedPaths(t: TestApp): Promise<string[]> {
  const rows = await t.index.db.selectFrom('asset').select('path').execute();
  return rows.map((r) => r.path).sort();
}

function expectStorageDown(res: Answer | request.Response): void {
  const body: unknown = res.body;
  expect({ status: res.status, retryAfter: res.headers['retry-after'], body }).toEqual({
    status: 503,
    retryAfter: '5',
    body: STORAGE_DOWN,
  });
}

describeS3('asset-store on S3 under faults', (s3) => {
  describe('the gateway stopped during ingests', () => {
    let proxy: TcpProxy;
    let t: TestApp;
    let direct: S3Client;
    beforeAll(async () => {
      const target = new URL(s3.endpoint);
      proxy = await TcpProxy.start(target.hostname, Number(target.port || 80));
      // The app reaches S3 through the proxy; the test reads the bucket directly.
      useS3Blobs({ ...s3, endpoint: proxy.rewrite(s3.endpoint).replace(/\/$/, '') });
      t = await createTestApp('s3_outage', { max_upload_bytes: 64 << 20 });
      direct = createS3Client(testS3Settings(s3, t.bucket!));
    }, 60_000);
    afterAll(async () => {
      await proxy.restore();
      await t.close();
      await proxy.close();
      direct.destroy();
    }, 60_000);

    it('answers 503 with Retry-After, indexes nothing half way and recovers alone', async () => {
      const earlier: { asset: Ingested; content: Buffer }[] = [];
      for (const size of [1000, 6 << 20]) {
        const content = randomBytes(size);
        earlier.push({ asset: await ingestFile(t.app, content, 'before.bin'), content });
      }
      const server = await listen(t.app);
      try {
        // Uploads under way when S3 goes: each has sent its first part.
        let open!: () => void;
        const gate = new Promise<void>((resolve) => (open = resolve));
        const inFlight = Array.from({ length: 4 }, () =>
          ingestInTwoHalves(server.port, randomBytes(12 << 20), 6 << 20, gate),
        );
        const waitForUploads = async () => {
          for (let i = 0; i < 300; i++) {
            if ((await bucketState(direct, t.bucket!)).uploads.length === 4) return;
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          throw new Error('the four multipart uploads never began');
        };
        await waitForUploads();
        await proxy.cut();
        open();
        const during = await Promise.all([
          ...inFlight,
          ...Array.from({ length: 6 }, (_, i) =>
            request(t.app).post(`${BASE}/ingest`).attach('file', randomBytes(2000), `d${i}.bin`),
          ),
          ...Array.from({ length: 4 }, (_, i) =>
            request(t.app)
              .post(`${BASE}/ingest/data`)
              .send({ data: { during: i } }),
          ),
          request(t.app).get(`${BASE}/asset/${earlier[0]!.asset.hash}`),
        ]);
        for (const res of during) expectStorageDown(res);
        // The index still answers what it holds alone; /healthz checks the index only.
        await request(t.app).get(`${BASE}/asset/${earlier[0]!.asset.hash}/meta`).expect(200);
        await request(t.app).get('/healthz').expect(200);
      } finally {
        await proxy.restore();
        await server.stop();
      }

      // Nothing half done: every row has its object and every object its row.
      const afterwards = await bucketState(direct, t.bucket!);
      expect(afterwards.assets).toEqual(await indexedPaths(t));
      expect(afterwards.assets).toEqual(earlier.map((e) => e.asset.filename).sort());

      // Recovered without a restart: new ingests work, earlier assets download whole.
      const fresh = randomBytes(3000);
      const after = await ingestFile(t.app, fresh, 'after.bin');
      for (const { asset, content } of [...earlier, { asset: after, content: fresh }]) {
        const res = await request(t.app)
          .get(`${BASE}/asset/${asset.hash}`)
          .buffer(true)
          .parse(binary)
          .expect(200);
        expect((res.body as Buffer).equals(content)).toBe(true);
      }
      // The scraps the outage kept the service from removing go once S3 is back.
      const cleaned = async () => {
        for (let i = 0; i < 100; i++) {
          const state = await bucketState(direct, t.bucket!);
          if (state.staged.length === 0 && state.uploads.length === 0) return state;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        return bucketState(direct, t.bucket!);
      };
      expect(await cleaned()).toEqual({
        assets: [...earlier.map((e) => e.asset.filename), after.filename].sort(),
        staged: [],
        uploads: [],
      });
    }, 60_000);
  });
});
