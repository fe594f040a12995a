import {
  AbortMultipartUploadCommand,
  CreateBucketCommand,
  DeleteObjectsCommand,
  HeadBucketCommand,
  ListMultipartUploadsCommand,
  S3Client,
  S3ServiceException,
  paginateListObjectsV2,
} from '@aws-sdk/client-s3';

/** Where the blobs live on S3 (contract: `s3_*` settings). */
export interface S3Settings {
  bucket: string;
  /** Put before every key; empty for the bucket's root. */
  prefix: string;
  /** Unset: AWS. */
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
  /** Unset: the AWS SDK's default chain (environment, profiles, instance roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/** The contract's `s3_*` keys, as the service configuration holds them. */
export interface S3ConfigKeys {
  s3_bucket?: string;
  s3_prefix: string;
  s3_endpoint?: string;
  s3_region: string;
  s3_force_path_style: boolean;
}

/** Settings from the configuration; credentials from the AWS SDK's default chain. */
export function s3SettingsFrom(config: S3ConfigKeys): S3Settings {
  if (config.s3_bucket === undefined) throw new Error('s3_bucket is required for S3 storage');
  return {
    bucket: config.s3_bucket,
    prefix: config.s3_prefix,
    endpoint: config.s3_endpoint,
    region: config.s3_region,
    forcePathStyle: config.s3_force_path_style,
  };
}

/** A client for these settings. */
export function createS3Client(settings: S3Settings): S3Client {
  return new S3Client({
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: settings.forcePathStyle,
    credentials: settings.credentials,
    // Checksums only where S3 requires them: gateways other than AWS's (Ceph, older MinIO)
    // refuse the SDK's default trailing CRC checksums on streamed bodies.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** True for S3's "no such key/bucket/upload" answers, whatever the gateway calls them. */
export function isNotFound(err: unknown): boolean {
  if (!(err instanceof S3ServiceException)) return false;
  return (
    err.$metadata.httpStatusCode === 404 ||
    err.name === 'NoSuchKey' ||
    err.name === 'NotFound' ||
    err.name === 'NoSuchBucket' ||
    err.name === 'NoSuchUpload'
  );
}

/** Creates the bucket when absent (contract); one that exists, ours or just made, is fine. */
export async function ensureBucket(client: S3Client, bucket: string): Promise<void> {
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucket }));
    return;
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (err) {
    // Another instance starting at the same moment made it first.
    if (!(err instanceof S3ServiceException && err.name === 'BucketAlreadyOwnedByYou')) throw err;
  }
}

/**
 * Aborts every unfinished multipart upload under `prefix` (contract: at start), so the
 * parts of uploads a crash cut off stop costing storage. Only uploads begun before
 * `startedAt` are touched.
 */
export async function abortUnfinishedUploads(
  client: S3Client,
  bucket: string,
  prefix: string,
  startedAt: Date,
): Promise<number> {
  let aborted = 0;
  let keyMarker: string | undefined;
  let uploadIdMarker: string | undefined;
  for (;;) {
    const page = await client.send(
      new ListMultipartUploadsCommand({
        Bucket: bucket,
        Prefix: prefix,
        KeyMarker: keyMarker,
        UploadIdMarker: uploadIdMarker,
      }),
    );
    for (const upload of page.Uploads ?? []) {
      if (!upload.Key || !upload.UploadId) continue;
      if (upload.Initiated && upload.Initiated >= startedAt) continue;
      await client
        .send(
          new AbortMultipartUploadCommand({
            Bucket: bucket,
            Key: upload.Key,
            UploadId: upload.UploadId,
          }),
        )
        .catch((err: unknown) => {
          if (!isNotFound(err)) throw err;
        });
      aborted++;
    }
    if (!page.IsTruncated) return aborted;
    keyMarker = page.NextKeyMarker;
    uploadIdMarker = page.NextUploadIdMarker;
  }
}

/** Every object under `prefix`: its key, size and last write. */
export async function* listObjectsUnder(
  client: S3Client,
  bucket: string,
  prefix: string,
): AsyncIterable<{ key: string; size: number; modified: Date | undefined }> {
  for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: prefix })) {
    for (const o of page.Contents ?? []) {
      if (o.Key) yield { key: o.Key, size: o.Size ?? 0, modified: o.LastModified };
    }
  }
}

/** Deletes every object under `prefix` older than `before`; how many went. */
export async function deleteObjectsUnder(
  client: S3Client,
  bucket: string,
  prefix: string,
  before?: Date,
): Promise<number> {
  let deleted = 0;
  for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: prefix })) {
    const keys = (page.Contents ?? [])
      .filter((o) => o.Key && (!before || !o.LastModified || o.LastModified < before))
      .map((o) => ({ Key: o.Key! }));
    if (keys.length === 0) continue;
    await client.send(
      new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys, Quiet: true } }),
    );
    deleted += keys.length;
  }
  return deleted;
}
