import fs from 'node:fs';
import type { Readable } from 'node:stream';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { SmallResult } from './bench-kit.js';

/**
 * The baselines of `bench:s3`: what a program with the AWS SDK alone does against the same
 * gateway, with the SDK's defaults (lib-storage: 5 MiB parts, 4 in flight), no hashing, no
 * index. The bench's own process runs them, as it runs the service's client side.
 */

/** A plain lib-storage Upload of `file` to `key`: its time in ms. */
export async function plainUpload(
  client: S3Client,
  bucket: string,
  key: string,
  file: string,
): Promise<number> {
  const started = performance.now();
  await new Upload({
    client,
    params: {
      Bucket: bucket,
      Key: key,
      Body: fs.createReadStream(file, { highWaterMark: 1 << 20 }),
    },
  }).done();
  return performance.now() - started;
}

/** A plain GetObject of `key`, its stream read and dropped: its time in ms and its size. */
export async function plainDownload(
  client: S3Client,
  bucket: string,
  key: string,
): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  const res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  let bytes = 0;
  for await (const chunk of res.Body as Readable) bytes += (chunk as Buffer).length;
  return { ms: performance.now() - started, bytes };
}

/** `count` PutObject calls of `body` under `prefix`, `concurrency` at a time. */
export async function plainSmallPuts(
  client: S3Client,
  bucket: string,
  prefix: string,
  body: Buffer,
  count: number,
  concurrency: number,
): Promise<SmallResult> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const started = performance.now();
  const lane = async (): Promise<void> => {
    while (next < count) {
      const key = `${prefix}${next++}`;
      const sent = performance.now();
      try {
        await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
      } catch {
        errors++;
      }
      latencies.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  const lastAnswerAt = performance.now();
  const elapsed = lastAnswerAt - started;
  latencies.sort((a, b) => a - b);
  return {
    rps: count / (elapsed / 1000),
    // autocannon's p99 for the service is whole milliseconds; so is this one.
    p99: Math.round(
      latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))]!,
    ),
    errors,
    lastAnswerAt,
  };
}
