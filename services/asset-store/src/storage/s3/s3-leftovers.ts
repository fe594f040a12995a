import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  ListMultipartUploadsCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { isNotFound } from './s3-client.js';

/** How long a removal that failed waits before it is tried again. */
const RETRY_MS = 2_000;

/**
 * Removals S3 could not take when asked (it was unreachable): a failed ingest's staged
 * object and multipart upload, or the object of an ingest undone. Each is kept and tried
 * again every `RETRY_MS` until it succeeds, so an outage leaves nothing behind once S3 is
 * back, without waiting for the next start's sweep. In memory only: after a crash, that
 * sweep (unfinished uploads, `.tmp/`) covers what was still pending.
 */
export class S3Leftovers {
  readonly #pending = new Map<string, () => Promise<void>>();
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {}

  /** Removes the staged object `key` and any upload still open to it; never rejects. */
  removeStaged(key: string): Promise<void> {
    return this.#attempt(`staged:${key}`, async () => {
      await abortUploadsTo(this.client, this.bucket, key);
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    });
  }

  /** Runs `remove` (idempotent) now, and again later until it succeeds; never rejects. */
  remove(id: string, remove: () => Promise<void>): Promise<void> {
    return this.#attempt(id, remove);
  }

  /** How many removals wait for S3. */
  get size(): number {
    return this.#pending.size;
  }

  /** Stops retrying (the store is closing). */
  close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async #attempt(id: string, remove: () => Promise<void>): Promise<void> {
    try {
      await remove();
      this.#pending.delete(id);
    } catch {
      this.#pending.set(id, remove);
      this.#schedule();
    }
  }

  #schedule(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void Promise.all([...this.#pending].map(([id, remove]) => this.#attempt(id, remove)));
    }, RETRY_MS);
    // Pending removals never keep the process alive.
    this.#timer.unref();
  }
}

/** Aborts every multipart upload open to exactly `key` (an abort at the failure itself may have failed). */
async function abortUploadsTo(client: S3Client, bucket: string, key: string): Promise<void> {
  const page = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: key }));
  for (const upload of page.Uploads ?? []) {
    if (upload.Key !== key || !upload.UploadId) continue;
    await client
      .send(
        new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: upload.UploadId }),
      )
      .catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
  }
}
