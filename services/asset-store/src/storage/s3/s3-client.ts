import {
  AbortMultipartUploadCommand,
  CreateBucketCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListMultipartUploadsCommand,
  S3Client,
  S3ServiceException,
  paginateListObjectsV2,
} from '@aws-sdk/client-s3';
import { assetErrors } from '../../errors.js';

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
  /** A call whose connection is silent this long fails (then the SDK retries); default 20 s. */
  timeoutMs?: number;
}

/** The contract's `s3_*` keys, as the service configuration holds them. */
export interface S3ConfigKeys {
  s3_bucket?: string;
  s3_prefix: string;
  s3_endpoint?: string;
  s3_region: string;
  s3_force_path_style: boolean;
  s3_timeout_seconds: number;
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
    timeoutMs: Math.round(config.s3_timeout_seconds * 1000),
  };
}

/** How long a connection to S3 may take to open: past it, the request fails (and is retried). */
export const CONNECT_TIMEOUT_MS = 5_000;

/** `s3_timeout_seconds`'s default, in ms. */
export const DEFAULT_S3_TIMEOUT_MS = 20_000;

/** Told the outcome of every S3 call, once the SDK's retries are spent (`S3Reachability`). */
export interface S3Outcomes {
  /** S3 answered (a success, or an answer such as 404 that says it is there). */
  answered(): void;
  /** S3 could not be reached or cannot serve now (`isStorageUnavailable`). */
  failed(err: unknown): void;
}

/** Node's words for a peer that cannot be reached or went away mid-request. */
const NETWORK_CODES = [
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
];
const NETWORK_WORDS = new RegExp(`\\b(${NETWORK_CODES.join('|')})\\b|socket hang up`);

/**
 * The network failure an error names (`ECONNREFUSED`, `socket hang up`), by its code or, for
 * an error the SDK rewrapped from another realm, by its message; undefined for none.
 */
export function networkFailureOf(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_CODES.includes(code)) return code;
  const found = NETWORK_WORDS.exec(err.message);
  return found ? (found[1] ?? found[0]) : undefined;
}

/**
 * True when S3 could not be reached or said it cannot serve now: a network failure, a
 * timeout, or a 5xx but 501 (S3's InternalError, SlowDown, a gateway's 502/503/504) once the SDK's
 * own retries are spent. A client error (4xx) is not: retrying would not help.
 */
export function isStorageUnavailable(err: unknown): boolean {
  if (err instanceof S3ServiceException) {
    const status = err.$metadata.httpStatusCode ?? 0;
    // 501: a feature the gateway lacks, which no retry brings.
    return status >= 500 && status !== 501;
  }
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') return NETWORK_CODES.includes(code);
  if (err.name === 'TimeoutError') return true;
  // An error thrown in another realm (Node's own, seen from a VM context such as Jest's)
  // reaches us rewrapped by the SDK's retry layer with only its message.
  return NETWORK_WORDS.test(err.message);
}

/**
 * The client's outermost step: an outage, once retried, becomes the catalogue's 503, so
 * every caller (ingest and its multipart uploads, downloads) answers it the same way; and
 * `outcomes` hears how each call went, so health knows S3's state without asking it.
 */
function storageOutageAs503(client: S3Client, outcomes?: S3Outcomes): void {
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        const result = await next(args);
        outcomes?.answered();
        return result;
      } catch (err) {
        if (!isStorageUnavailable(err)) {
          if (err instanceof S3ServiceException) outcomes?.answered();
          throw err;
        }
        outcomes?.failed(err);
        throw Object.assign(assetErrors.storageUnavailable(), { cause: err });
      }
    },
    { step: 'initialize', priority: 'high', name: 'storageOutageAs503' },
  );
}

/** A client for these settings; `outcomes` hears how each call ended. */
export function createS3Client(settings: S3Settings, outcomes?: S3Outcomes): S3Client {
  const client = new S3Client({
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: settings.forcePathStyle,
    credentials: settings.credentials,
    // Checksums only where S3 requires them: gateways other than AWS's (Ceph, older MinIO)
    // refuse the SDK's default trailing CRC checksums on streamed bodies.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // A gateway that drops packets rather than refusing, or accepts and never answers (or
    // stops midway), must not hold a call forever: the socket's silence ends it. Silence,
    // not a whole-call bound: a large part upload or download keeps its connection busy.
    requestHandler: {
      connectionTimeout: CONNECT_TIMEOUT_MS,
      socketTimeout: settings.timeoutMs ?? DEFAULT_S3_TIMEOUT_MS,
    },
  });
  storageOutageAs503(client, outcomes);
  return client;
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
 * `startedAt` that `keep` does not keep (a live instance's) are touched.
 */
export async function abortUnfinishedUploads(
  client: S3Client,
  bucket: string,
  prefix: string,
  startedAt: Date,
  keep: (key: string) => Promise<boolean> = () => Promise.resolve(false),
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
      if (await keep(upload.Key)) continue;
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

/** Deletes every object under `prefix` older than `before` that `keep` does not keep; how many went. */
export async function deleteObjectsUnder(
  client: S3Client,
  bucket: string,
  prefix: string,
  before?: Date,
  keep: (key: string) => Promise<boolean> = () => Promise.resolve(false),
): Promise<number> {
  let deleted = 0;
  for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: prefix })) {
    const keys: { Key: string }[] = [];
    for (const o of page.Contents ?? []) {
      if (!o.Key || (before && o.LastModified && o.LastModified >= before)) continue;
      if (!(await keep(o.Key))) keys.push({ Key: o.Key });
    }
    if (keys.length === 0) continue;
    await client.send(
      new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys, Quiet: true } }),
    );
    deleted += keys.length;
  }
  return deleted;
}

/** An object's whole content, or undefined when there is no such key. */
export async function getObjectBytes(
  client: S3Client,
  bucket: string,
  key: string,
): Promise<Buffer | undefined> {
  try {
    const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return Buffer.from(await got.Body!.transformToByteArray());
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
