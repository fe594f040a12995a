import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  CreateMultipartUploadCommand,
  DeleteBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
} from '@aws-sdk/client-s3';
import { describeS3 } from '@svc/testing';
import { freePort, spawnService } from '@svc/testing/service-process';
import { useServiceSandbox } from '@svc/testing/service-sandbox';
import { createS3Client, deleteObjectsUnder, ensureBucket } from '../src/storage/s3/s3-client.js';
import { testS3Settings } from './s3-bucket.js';

const ENTRY = path.resolve(import.meta.dirname, '..', 'src', 'main.ts');
const START_TIMEOUT_MS = 90_000;

const sandbox = useServiceSandbox('asset-store-s3-');

describeS3('asset-store started with storage_backend: s3', (s3) => {
  it(
    'aborts unfinished uploads at start, keeps ingested files in the bucket and serves them',
    async () => {
      const bucket = `asset-store-start-${randomBytes(5).toString('hex')}`;
      const client = createS3Client(testS3Settings(s3, bucket));
      try {
        await ensureBucket(client, bucket);
        await client.send(
          new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'can/.tmp/old/1-a' }),
        );
        const port = await freePort();
        const url = await sandbox.serverDatabaseUrl('asset_start_s3');
        const config = sandbox.configFile(
          `storage_root: ./scratch\nlisten: 127.0.0.1:${port}\n` +
            (url ? `database_url: ${url}\n` : '') +
            `storage_backend: s3\ns3_bucket: ${bucket}\ns3_prefix: can/\n` +
            `s3_endpoint: ${s3.endpoint}\ns3_region: ${s3.region}\n` +
            `s3_force_path_style: ${s3.forcePathStyle}\n`,
        );
        // Credentials through the AWS SDK's default chain, as the contract says.
        sandbox.running = spawnService(ENTRY, [config], {
          AWS_ACCESS_KEY_ID: s3.accessKeyId,
          AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
          // On Node 20 the SDK warns on stderr that its 2027 releases need Node 22; the
          // stderr checked below is the service's own.
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        });
        expect(await sandbox.running.waitForLog('assets are kept on S3')).toMatchObject({
          bucket,
          prefix: 'can/',
          aborted: 1,
        });
        await sandbox.running.waitForLog('listening');
        const uploads = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
        expect(uploads.Uploads ?? []).toEqual([]);

        const form = new FormData();
        form.append('tags', 'on-s3');
        form.append('file', new Blob(['stored in a bucket']), 'b.txt');
        const base = `http://127.0.0.1:${port}/api/v1/can/0`;
        const ingested = await fetch(`${base}/ingest`, { method: 'POST', body: form });
        expect(ingested.status).toBe(200);
        const { data } = (await ingested.json()) as { data: { hash: string; filename: string } };
        const head = await client.send(
          new HeadObjectCommand({ Bucket: bucket, Key: `can/${data.filename}` }),
        );
        expect(head.Metadata?.['can-hash']).toBe(data.hash);
        // storage_root holds only scratch space (and the embedded index), no asset.
        const scratch = fs.readdirSync(path.join(sandbox.dir, 'scratch'));
        expect(scratch.filter((n) => !n.startsWith('.'))).toEqual([]);

        const got = await fetch(`${base}/asset/${data.hash}`, { headers: { Range: 'bytes=10-' } });
        expect(got.status).toBe(206);
        expect(await got.text()).toBe('a bucket');

        sandbox.running.child.kill('SIGTERM');
        expect(await sandbox.running.exited).toEqual({ code: 0, signal: null });
        // Only the line saying it serves (start-output.test.ts).
        const home = `http://127.0.0.1:${port}/`;
        expect(sandbox.running.stderr()).toBe(
          `asset-store ready: ${home} (console: ${home}console/, API reference: ${home}docs)\n`,
        );
      } finally {
        await deleteObjectsUnder(client, bucket, '');
        await client.send(new DeleteBucketCommand({ Bucket: bucket }));
        client.destroy();
      }
    },
    START_TIMEOUT_MS,
  );
});
