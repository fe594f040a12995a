import fs from 'node:fs';
import path from 'node:path';
import * as tus from 'tus-js-client';

/** The upload endpoint under a base URL. */
export const uploadsUrl = (base: string): string => `${base}/api/v1/can/0/uploads`;

/** What a finished tus upload told its client. */
export interface TusFinished {
  /** The upload's URL (Location of its creation). */
  url: string;
  /** `Asset-Hash` and `Asset-Timestamp` of the last PATCH's answer. */
  hash: string;
  timestamp: number;
}

/** Options a test varies; the rest are tus-js-client's defaults. */
export interface TusOptions {
  metadata?: Record<string, string>;
  chunkSize?: number;
  headers?: Record<string, string>;
  retryDelays?: number[];
  /** Called with the bytes the server acknowledged so far. */
  onProgress?: (sent: number) => void;
  /** Called on each failed request that the client will retry. */
  onRetry?: (err: Error) => void;
  /** Resume this upload (its URL) instead of creating one. */
  uploadUrl?: string;
}

/**
 * Uploads `content` with tus-js-client, a real tus client, and resolves once it reports
 * success, with the asset headers of the answer that finished it.
 */
export function tusUpload(
  base: string,
  content: Buffer,
  options: TusOptions = {},
): Promise<TusFinished> {
  return new Promise((resolve, reject) => {
    let hash: string | undefined;
    let timestamp: string | undefined;
    const upload = new tus.Upload(content, {
      endpoint: uploadsUrl(base),
      ...(options.uploadUrl ? { uploadUrl: options.uploadUrl } : {}),
      metadata: options.metadata ?? {},
      chunkSize: options.chunkSize ?? Number.POSITIVE_INFINITY,
      headers: options.headers ?? {},
      retryDelays: options.retryDelays ?? [],
      onProgress: (sent) => options.onProgress?.(sent),
      onShouldRetry: (err) => {
        options.onRetry?.(err);
        return true;
      },
      onAfterResponse: (_req, res) => {
        hash = res.getHeader('Asset-Hash') ?? hash;
        timestamp = res.getHeader('Asset-Timestamp') ?? timestamp;
      },
      onError: reject,
      onSuccess: () => {
        if (hash === undefined || timestamp === undefined || upload.url === null) {
          reject(new Error('the upload finished without Asset-Hash and Asset-Timestamp'));
          return;
        }
        resolve({ url: upload.url, hash, timestamp: Number(timestamp) });
      },
    });
    upload.start();
  });
}

/** `Upload-Metadata` as tus has it: `key base64,key base64`. */
export function encodeMetadata(metadata: Record<string, string | Buffer>): string {
  return Object.entries(metadata)
    .map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`)
    .join(',');
}

/** Creates an upload with raw HTTP; answers the response and the upload's absolute URL. */
export async function createUpload(
  base: string,
  length: number,
  headers: Record<string, string> = {},
): Promise<{ res: Response; url: string }> {
  const res = await fetch(uploadsUrl(base), {
    method: 'POST',
    headers: { 'Tus-Resumable': '1.0.0', 'Upload-Length': String(length), ...headers },
  });
  const location = res.headers.get('location');
  return { res, url: location === null ? '' : new URL(location, base).toString() };
}

/** A raw PATCH of `bytes` at `offset`. */
export function patchUpload(
  url: string,
  offset: number,
  bytes: Buffer,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: 'PATCH',
    headers: {
      'Tus-Resumable': '1.0.0',
      'Upload-Offset': String(offset),
      'Content-Type': 'application/offset+octet-stream',
      ...headers,
    },
    body: bytes,
  });
}

/** A raw HEAD of an upload. */
export function headUpload(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0', ...headers } });
}

/** What `.tmp/uploads/` holds, sorted. */
export function uploadFolder(storageRoot: string): string[] {
  const dir = path.join(storageRoot, '.tmp', 'uploads');
  return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
}

/** The `sha256 <base64>` value of `Upload-Checksum` for `bytes`. */
export function checksumOf(digest: Buffer): string {
  return `sha256 ${digest.toString('base64')}`;
}
