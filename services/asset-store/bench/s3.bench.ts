import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DeleteBucketCommand, DeleteObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { createTestDatabase, testS3, type TestDatabase } from '@svc/testing';
import {
  abortUnfinishedUploads,
  createS3Client,
  deleteObjectsUnder,
  ensureBucket,
} from '../src/storage/s3/s3-client.js';
import {
  cpuSeconds,
  envNumber,
  median,
  multipartBody,
  printFigure,
  round3,
  settle,
  smallFiles,
  startService,
  stopProc,
  type Proc,
  type SmallResult,
} from './bench-kit.js';
import {
  downloadFromService,
  ingestLarge,
  makeLargeFile,
  purgeFromService,
  RssSampler,
} from './bench-large.js';
import { plainDownload, plainSmallPuts, plainUpload } from './s3-baseline.js';

/**
 * `pnpm --filter asset-store bench:s3` (issue 27): the built service keeping its blobs on
 * S3 against the AWS SDK alone on the same gateway, in alternating rounds (baseline, then
 * service, every pair), so drift on a shared machine hits both. Needs `S3_ENDPOINT` and
 * the other `S3_*` variables (`ceph-s3.sh start` prints them); skips without them.
 * Sizes: `S3_BENCH_MIB` (1024), `S3_BENCH_PAIRS` (3), `S3_BENCH_SMALL_COUNT` (1000 per
 * round), `S3_BENCH_SMALL_PAIRS` (3, after one pair of warm-up). One JSON line per figure
 * on stdout; progress on stderr. The bucket is made for the run and removed after it.
 */
const MIB = 1 << 20;
const SIZE = Math.round(envNumber('S3_BENCH_MIB', 1024) * MIB);
const PAIRS = envNumber('S3_BENCH_PAIRS', 3);
const SMALL_COUNT = envNumber('S3_BENCH_SMALL_COUNT', 1000);
const SMALL_PAIRS = envNumber('S3_BENCH_SMALL_PAIRS', 3);
const CONNECTIONS = 8;
const ADMIN_TOKEN = 'bench-admin-token';
const SERVICE_PREFIX = 'svc/';

const say = (line: string) => process.stderr.write(`bench:s3: ${line}\n`);
const mbs = (bytes: number, ms: number) => bytes / MIB / (ms / 1000);

interface LargePair {
  ingest: { service: number; baseline: number };
  download: { service: number; baseline: number };
  rssGrowth: number;
  serviceCpu: number;
}

/**
 * One pair of 1 GiB rounds: the SDK's upload and download, then the service's ingest and
 * download. Each side's object is deleted before the other side starts: the Ceph tool's
 * gateway keeps objects in memory, and the service's ingest holds a staged copy as well.
 */
async function largePair(
  client: S3Client,
  bucket: string,
  service: Proc,
  file: string,
): Promise<LargePair> {
  const pid = service.child.pid!;
  const rss = new RssSampler(pid);
  await settle(pid);
  const uploadMs = await plainUpload(client, bucket, 'plain/large', file);
  const plain = await plainDownload(client, bucket, 'plain/large');
  await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'plain/large' }));
  await settle(pid);
  const before = rss.start();
  const cpu = cpuSeconds(pid);
  const ingested = await ingestLarge(service.port, file);
  const serviceCpu = cpuSeconds(pid) - cpu;
  const rssGrowth = rss.stop() - before;
  await settle(pid);
  const served = await downloadFromService(service.port, ingested.hash);
  await purgeFromService(service.port, ingested.hash, ADMIN_TOKEN);
  if (plain.bytes !== SIZE || served.bytes !== SIZE) {
    throw new Error(`downloads of ${plain.bytes} and ${served.bytes} bytes, expected ${SIZE}`);
  }
  return {
    ingest: { service: mbs(SIZE, ingested.ms), baseline: mbs(SIZE, uploadMs) },
    download: { service: mbs(SIZE, served.ms), baseline: mbs(SIZE, plain.ms) },
    rssGrowth,
    serviceCpu,
  };
}

/** One pair of small rounds: PutObject calls, then service ingests, same count and concurrency. */
async function smallPair(
  client: S3Client,
  bucket: string,
  service: Proc,
  round: number,
): Promise<{ service: SmallResult; baseline: SmallResult }> {
  const content = randomBytes(4096);
  const multipart = multipartBody(content);
  await settle(service.child.pid!);
  const prefix = `plain/small/${round}/`;
  const baseline = await plainSmallPuts(client, bucket, prefix, content, SMALL_COUNT, CONNECTIONS);
  const url = '/api/v1/can/0/ingest';
  const svc = await smallFiles(
    service.port,
    url,
    multipart.body,
    multipart.type,
    SMALL_COUNT,
    CONNECTIONS,
  );
  await deleteObjectsUnder(client, bucket, prefix);
  return { service: svc, baseline };
}

/** The JSON line of a throughput figure judged by its median pair's ratio. */
function throughputFigure(
  figure: string,
  unit: string,
  pairs: { service: number; baseline: number }[],
  target: number,
  extra: Record<string, unknown> = {},
): void {
  const ratios = pairs.map((p) => p.service / p.baseline);
  const ratio = median(ratios);
  printFigure({
    bench: 's3',
    figure,
    unit,
    service: round3(median(pairs.map((p) => p.service))),
    baseline: round3(median(pairs.map((p) => p.baseline))),
    ratio: round3(ratio),
    target: `>= ${target}`,
    ok: ratio >= target,
    pairs: pairs.map((p, i) => ({
      service: round3(p.service),
      baseline: round3(p.baseline),
      ratio: round3(ratios[i]!),
    })),
    ...extra,
  });
}

async function main(): Promise<void> {
  // The SDK's notice that its 2027 releases need Node 22 (docs/storage.md) is not a figure.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const s3 = testS3();
  if (!s3) {
    say('skipped: no S3_ENDPOINT (eval "$(ceph-s3.sh start DIR PORT)" first; see bench/NOTES.md)');
    return;
  }
  const bucket = `asset-bench-${randomBytes(5).toString('hex')}`;
  const client = createS3Client({
    bucket,
    prefix: '',
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: s3.forcePathStyle,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-bench-s3-'));
  const largeFile = path.join(work, 'large.bin');
  let database: TestDatabase | undefined;
  let service: Proc | undefined;
  try {
    say(`preparing a ${SIZE / MIB} MiB file in ${work}`);
    makeLargeFile(largeFile, SIZE);
    await ensureBucket(client, bucket);
    if (process.env.TEST_DATABASE_URL) database = await createTestDatabase('asset_bench_s3');
    const databaseUrl = database?.target.kind === 'postgres' ? database.target.url : undefined;
    service = await startService(path.join(work, 'service'), databaseUrl, {
      env: {
        ASSET_STORE_ADMIN_TOKEN: ADMIN_TOKEN,
        ASSET_STORE_STORAGE_BACKEND: 's3',
        ASSET_STORE_S3_BUCKET: bucket,
        ASSET_STORE_S3_PREFIX: SERVICE_PREFIX,
        ASSET_STORE_S3_ENDPOINT: s3.endpoint,
        ASSET_STORE_S3_REGION: s3.region,
        ASSET_STORE_S3_FORCE_PATH_STYLE: String(s3.forcePathStyle),
        // The service takes its credentials from the SDK's default chain (docs/storage.md).
        AWS_ACCESS_KEY_ID: s3.accessKeyId,
        AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
    });
    const common = {
      index: databaseUrl ? 'postgres' : 'pglite',
      cores: os.cpus().length,
      load1: round3(os.loadavg()[0]!),
    };

    const large: LargePair[] = [];
    for (let pair = 0; pair < PAIRS; pair++) {
      large.push(await largePair(client, bucket, service, largeFile));
      say(`large pair ${pair + 1}/${PAIRS}: ${JSON.stringify(large.at(-1))}`);
    }
    const sizeMiB = SIZE / MIB;
    throughputFigure(
      'large_ingest',
      'MB/s',
      large.map((p) => p.ingest),
      0.8,
      { ...common, size_mib: sizeMiB },
    );
    throughputFigure(
      'large_download',
      'MB/s',
      large.map((p) => p.download),
      0.8,
      { ...common, size_mib: sizeMiB },
    );
    const growth = Math.max(...large.map((p) => p.rssGrowth)) / MIB;
    printFigure({
      bench: 's3',
      figure: 'large_ingest_rss_growth',
      unit: 'MB',
      service: round3(growth),
      target: '< 64',
      ok: growth < 64,
      service_cpu_s: large.map((p) => round3(p.serviceCpu)),
      size_mib: sizeMiB,
    });

    await smallPair(client, bucket, service, 0); // warm-up, not judged
    const small: { service: SmallResult; baseline: SmallResult }[] = [];
    for (let pair = 1; pair <= SMALL_PAIRS; pair++) {
      small.push(await smallPair(client, bucket, service, pair));
      say(`small pair ${pair}/${SMALL_PAIRS}: ${JSON.stringify(small.at(-1))}`);
    }
    const errors = small.reduce((n, p) => n + p.service.errors + p.baseline.errors, 0);
    throughputFigure(
      'small_ingest',
      'req/s',
      small.map((p) => ({ service: p.service.rps, baseline: p.baseline.rps })),
      0.5,
      {
        ...common,
        count: SMALL_COUNT,
        connections: CONNECTIONS,
        p99_ms: {
          service: median(small.map((p) => p.service.p99)),
          baseline: median(small.map((p) => p.baseline.p99)),
        },
        errors,
      },
    );
    // Rates of failed requests say nothing: the run fails after printing them.
    if (errors > 0) throw new Error(`${errors} small requests failed`);
  } finally {
    if (service) await stopProc(service);
    await abortUnfinishedUploads(client, bucket, '', new Date()).catch(() => 0);
    await deleteObjectsUnder(client, bucket, '').catch(() => 0);
    await client.send(new DeleteBucketCommand({ Bucket: bucket })).catch((err: unknown) => {
      say(`bucket ${bucket} not removed: ${String(err)}`);
    });
    fs.rmSync(work, { recursive: true, force: true });
    await database?.drop();
  }
}

await main();
