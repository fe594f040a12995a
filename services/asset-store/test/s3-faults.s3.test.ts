import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { DeleteBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { describeS3, TcpProxy } from '@svc/testing';
import { freePort, spawnService, waitUntil } from '@svc/testing/service-process';
import { useServiceSandbox } from '@svc/testing/service-sandbox';
import request from 'supertest';
import { createS3Client, deleteObjectsUnder } from '../src/storage/s3/s3-client.js';
import { ingestFile, listen, type Ingested } from './asset-helpers.js';
import { testS3Settings } from './s3-bucket.js';
import { bucketState, ingestInTwoHalves, type Answer } from './s3-faults-helpers.js';
import { createTestApp, useS3Blobs, type TestApp } from './test-app.js';

const BASE = '/api/v1/can/0';
const ENTRY = path.resolve(import.meta.dirname, '..', 'src', 'main.ts');
const INGESTS = 50;
/** Every seventh ingest is past one 5 MiB part: a multipart upload. */
const MULTIPART_BYTES = 6 << 20;
const SPACING_MS = 40;
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

const sandbox = useServiceSandbox('asset-store-s3-kill-');

/** A file ingest over HTTP; the answer's data, or a throw for anything but 200. */
async function ingestOver(base: string, content: Buffer, i: number): Promise<Ingested> {
  const form = new FormData();
  form.append('tags', 'kill');
  form.append('file', new Blob([content]), `k${i}.bin`);
  const res = await fetch(`${base}${BASE}/ingest`, { method: 'POST', body: form });
  if (res.status !== 200) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { data: Ingested }).data;
}

describeS3('asset-store on S3 under faults', (s3) => {
  describe('the gateway stopped during ingests', () => {
    let proxy: TcpProxy;
    let t: TestApp;
    let direct: S3Client;
    let endpoint: string;
    beforeAll(async () => {
      const target = new URL(s3.endpoint);
      proxy = await TcpProxy.start(target.hostname, Number(target.port || 80));
      // The app reaches S3 through the proxy; the test reads the bucket directly.
      endpoint = proxy.rewrite(s3.endpoint).replace(/\/$/, '');
      useS3Blobs({ ...s3, endpoint });
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
        // The index still answers what it holds alone; /healthz says what cannot be reached.
        await request(t.app).get(`${BASE}/asset/${earlier[0]!.asset.hash}/meta`).expect(200);
        const health = await request(t.app).get('/healthz');
        expect({ status: health.status, body: health.body as unknown }).toEqual({
          status: 503,
          body: {
            status: 'error',
            error: `storage unreachable: S3 at ${endpoint} (bucket ${t.bucket}) does not answer (ECONNREFUSED)`,
          },
        });
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
      await request(t.app).get('/healthz').expect(200);
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

  it('keeps every acknowledged asset of 50 ingests cut by SIGKILL, and no open upload', async () => {
    const bucket = `asset-store-kill-${randomBytes(5).toString('hex')}`;
    const direct = createS3Client(testS3Settings(s3, bucket));
    try {
      const port = await freePort();
      const url = await sandbox.serverDatabaseUrl('asset_s3_kill');
      const config = sandbox.configFile(
        `storage_root: ./scratch\nlisten: 127.0.0.1:${port}\nlog_level: warn\n` +
          (url ? `database_url: ${url}\n` : '') +
          `storage_backend: s3\ns3_bucket: ${bucket}\ns3_endpoint: ${s3.endpoint}\n` +
          `s3_region: ${s3.region}\ns3_force_path_style: ${s3.forcePathStyle}\n`,
      );
      const env = {
        AWS_ACCESS_KEY_ID: s3.accessKeyId,
        AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      };
      const base = `http://127.0.0.1:${port}`;
      const up = () => waitUntil(async () => (await fetch(`${base}/healthz`)).status === 200);
      sandbox.running = spawnService(ENTRY, [config], env);
      await up();

      // Two uploads certainly under way at the kill: their first part is sent, the rest held.
      const held = [0, 1].map(() =>
        ingestInTwoHalves(port, randomBytes(12 << 20), 6 << 20, new Promise(() => undefined)),
      );
      const acknowledged: { asset: Ingested; content: Buffer }[] = [];
      // A steady stream rather than one burst, so small and multipart ones end interleaved.
      const load = Array.from({ length: INGESTS }, async (_, i) => {
        await new Promise((resolve) => setTimeout(resolve, i * SPACING_MS));
        const content = randomBytes(i % 7 === 0 ? MULTIPART_BYTES : 1000 + i * 97);
        const asset = await ingestOver(base, content, i);
        acknowledged.push({ asset, content });
      });
      const settled = Promise.allSettled([...held, ...load]);
      await waitUntil(async () => {
        const state = await bucketState(direct, bucket);
        const multipart = acknowledged.filter((a) => a.content.length === MULTIPART_BYTES);
        return (
          acknowledged.length >= INGESTS / 3 && multipart.length >= 2 && state.uploads.length >= 2
        );
      }, 30_000);
      const victim = sandbox.running;
      victim.child.kill('SIGKILL');
      await victim.exited;
      const cutOff = (await settled).filter((r) => r.status === 'rejected').length;
      // Some ingests were cut off: the kill landed in the middle of the load.
      expect(cutOff).toBeGreaterThanOrEqual(2);
      expect(acknowledged.length + cutOff).toBe(INGESTS + 2);

      sandbox.running = spawnService(ENTRY, [config], env);
      await up();
      const state = await bucketState(direct, bucket);
      expect({ staged: state.staged, uploads: state.uploads }).toEqual({ staged: [], uploads: [] });
      for (const { asset, content } of acknowledged) {
        const got = await fetch(`${base}${BASE}/asset/${asset.hash}`);
        expect(got.status).toBe(200);
        expect(Buffer.from(await got.arrayBuffer()).equals(content)).toBe(true);
      }
      // Rows and objects one to one: an object placed before the kill was indexed at start.
      const listed = await fetch(`${base}${BASE}/list?limit=1000&include_corrupted=true`);
      const { data } = (await listed.json()) as { data: { items: { hash: string }[] } };
      const hashes = data.items.map((item) => item.hash).sort();
      expect(hashes).toEqual(state.assets.map((name) => name.split('_')[1]).sort());
      expect(hashes).toEqual(expect.arrayContaining(acknowledged.map((a) => a.asset.hash)));
    } finally {
      await deleteObjectsUnder(direct, bucket, '').catch(() => undefined);
      await direct.send(new DeleteBucketCommand({ Bucket: bucket })).catch(() => undefined);
      direct.destroy();
    }
  }, 90_000);
});
