import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { DeleteBucketCommand } from '@aws-sdk/client-s3';
import { describeS3, TcpProxy } from '@svc/testing';
import { freePort, spawnService, waitUntil } from '@svc/testing/service-process';
import { useServiceSandbox } from '@svc/testing/service-sandbox';
import { createS3Client, deleteObjectsUnder } from '../src/storage/s3/s3-client.js';
import { testS3Settings } from './s3-bucket.js';

const ENTRY = path.resolve(import.meta.dirname, '..', 'src', 'main.ts');
const TIMEOUT_MS = 90_000;

const sandbox = useServiceSandbox('asset-store-s3-wait-');

/** A matcher for a string that begins with `text`, taken literally. */
function beginning(text: string): string {
  return expect.stringMatching(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`) as string;
}

/** An answer's status, `Retry-After` and body. */
async function answer(res: Response) {
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: await res.json(),
  };
}

describeS3('asset-store started while its S3 gateway does not answer', (s3) => {
  let gateway: TcpProxy;
  let bucket: string;
  let endpoint: string;
  let base: string;
  let config: string;
  const env = {
    AWS_ACCESS_KEY_ID: s3.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };

  beforeEach(async () => {
    const target = new URL(s3.endpoint);
    // A gateway that accepts connections and never answers on them.
    gateway = await TcpProxy.start(target.hostname, Number(target.port || 80));
    gateway.silence();
    endpoint = gateway.rewrite(s3.endpoint).replace(/\/$/, '');
    bucket = `asset-store-wait-${randomBytes(5).toString('hex')}`;
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const url = await sandbox.serverDatabaseUrl('asset_s3_wait');
    config = sandbox.configFile(
      `storage_root: ./scratch\nlisten: 127.0.0.1:${port}\n` +
        (url ? `database_url: ${url}\n` : '') +
        `storage_backend: s3\ns3_bucket: ${bucket}\ns3_endpoint: ${endpoint}\n` +
        `s3_region: ${s3.region}\ns3_force_path_style: ${s3.forcePathStyle}\n` +
        's3_timeout_seconds: 1\n',
    );
  });
  afterEach(async () => {
    await gateway.close();
    const direct = createS3Client(testS3Settings(s3, bucket));
    await deleteObjectsUnder(direct, bucket, '').catch(() => undefined);
    await direct.send(new DeleteBucketCommand({ Bucket: bucket })).catch(() => undefined);
    direct.destroy();
  });

  it(
    'says what it waits for, listens with 503s (health says why) and serves once S3 answers',
    async () => {
      const service = spawnService(ENTRY, [config], env);
      sandbox.running = service;
      expect(await service.waitForLog('waiting for S3')).toMatchObject({ endpoint, bucket });
      await service.waitForLog('listening');
      const waiting = `waiting for S3 at ${endpoint} (bucket ${bucket})`;
      expect(await answer(await fetch(`${base}/healthz`))).toEqual({
        status: 503,
        retryAfter: '5',
        body: { status: 'error', error: beginning(`starting: ${waiting}`) },
      });
      const form = new FormData();
      form.append('file', new Blob(['held at the door']), 'a.txt');
      const refused = await fetch(`${base}/api/v1/can/0/ingest`, { method: 'POST', body: form });
      expect(await answer(refused)).toEqual({
        status: 503,
        retryAfter: '5',
        body: {
          status: 'error',
          error: beginning(`the service is starting (${waiting}`),
        },
      });
      // Each try ends within its timeouts, and the next one is said, with its delay.
      expect(await service.waitForLog('S3 does not answer; retrying')).toMatchObject({
        endpoint,
        bucket,
        retryInMs: expect.any(Number) as number,
      });

      await gateway.restore();
      await service.waitForLog('assets are kept on S3');
      await waitUntil(async () => (await fetch(`${base}/healthz`)).status === 200, 30_000);
      const ingested = await fetch(`${base}/api/v1/can/0/ingest`, { method: 'POST', body: form });
      expect(ingested.status).toBe(200);

      service.child.kill('SIGTERM');
      expect(await service.exited).toEqual({ code: 0, signal: null });
      // Ready once S3 answered (start-output.test.ts), not while it listened with 503s.
      expect(service.stderr()).toBe(
        `asset-store ready: ${base}/ (console: ${base}/console/, API reference: ${base}/docs)\n`,
      );
    },
    TIMEOUT_MS,
  );

  it(
    'stops at once, exit 0, on SIGTERM while it waits for S3',
    async () => {
      const service = spawnService(ENTRY, [config], env);
      sandbox.running = service;
      await service.waitForLog('listening');
      service.child.kill('SIGTERM');
      expect(await service.exited).toEqual({ code: 0, signal: null });
      await service.waitForLog('stopped');
      expect(service.stderr()).toBe('');
    },
    TIMEOUT_MS,
  );
});
