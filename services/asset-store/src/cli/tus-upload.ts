import fs from 'node:fs';
import { Upload, type DetailedError } from 'tus-js-client';
import { ApiError, InterruptedError } from './cli-errors.js';
import type { IngestFields } from '../client/index.js';
import type { UrlStorage } from './upload-state.js';

/** One large file sent over tus (contract, "resumable uploads (tus 1.0.0)"). */
export interface TusUploadOptions {
  /** The tus collection: `<base>/api/v1/can/0/uploads`. */
  endpoint: string;
  file: string;
  size: number;
  filename: string;
  fields: IngestFields;
  headers: Record<string, string>;
  state: UrlStorage;
  /** Pauses the upload (kept on the server, resumable) when aborted. */
  signal: AbortSignal;
  onBytes: (sentSoFar: number) => void;
}

/** PATCH size: a drop loses at most this much, and proxies see bounded bodies. */
const CHUNK_BYTES = 16 << 20;

/**
 * Uploads one file with tus-js-client, resuming an unfinished upload of the same file
 * (same path, size and mtime) that the state file remembers. Resolves to the asset the
 * last PATCH (or, for an upload finished before, the HEAD) names in `Asset-Hash` and
 * `Asset-Timestamp`.
 */
export function tusUpload(options: TusUploadOptions): Promise<{ hash: string; timestamp: number }> {
  const { fields } = options;
  const metadata: Record<string, string> = { filename: options.filename };
  for (const key of [
    'mime_type',
    'human_file_name',
    'human_readable_path',
    'application',
    'user',
    'tags',
    'description',
  ] as const) {
    const value = fields[key];
    if (value) metadata[key] = value;
  }
  return new Promise((resolve, reject) => {
    if (options.signal.aborted) {
      reject(new InterruptedError());
      return;
    }
    const upload = new Upload(fs.createReadStream(options.file), {
      endpoint: options.endpoint,
      metadata,
      headers: options.headers,
      uploadSize: options.size,
      chunkSize: CHUNK_BYTES,
      retryDelays: [0, 1000, 3000, 5000],
      urlStorage: options.state,
      storeFingerprintForResuming: true,
      removeFingerprintOnSuccess: true,
      onProgress: (sent) => options.onBytes(sent),
      onSuccess: ({ lastResponse }) => {
        options.signal.removeEventListener('abort', pause);
        const hash = lastResponse.getHeader('Asset-Hash');
        const timestamp = Number(lastResponse.getHeader('Asset-Timestamp'));
        if (!hash || !Number.isSafeInteger(timestamp)) {
          reject(new ApiError(lastResponse.getStatus(), 'upload finished without Asset-Hash'));
          return;
        }
        resolve({ hash, timestamp });
      },
      onError: (err) => {
        options.signal.removeEventListener('abort', pause);
        reject(tusError(err));
      },
    });
    const pause = () => {
      // abort(false): the server keeps what it has; the state file keeps the URL.
      void upload.abort(false).finally(() => reject(new InterruptedError()));
    };
    options.signal.addEventListener('abort', pause, { once: true });
    upload
      .findPreviousUploads()
      .then((previous) => {
        const last = previous.at(-1);
        if (last) upload.resumeFromPreviousUpload(last);
        if (!options.signal.aborted) upload.start();
      })
      .catch((err: unknown) => reject(err instanceof Error ? err : new Error(String(err))));
  });
}

/** The store's own error message when the failure was an answer in its envelope. */
function tusError(err: Error | DetailedError): Error {
  const res = (err as DetailedError).originalResponse;
  if (!res) return err;
  const status = res.getStatus();
  try {
    const body = JSON.parse(res.getBody()) as { error?: unknown };
    if (typeof body.error === 'string') return new ApiError(status, body.error);
  } catch {
    // Not an envelope: fall through to tus-js-client's own description.
  }
  return new ApiError(status, err.message);
}
