import type { Logger } from 'pino';
import type { BlobStore } from '../storage/blob-store.js';

/** Blob name → version, as one listing found them. */
type Listing = Map<string, string>;

/**
 * The verifier's watch where no file system events come (S3, contract: `s3_watch_seconds`):
 * the store is listed every interval, and each blob that changed version or disappeared
 * since the listing before is handed to `onChange` (the verifier's `verifyPaths`). New
 * names are not changes: an ingest adds them, and what was there before this start is the
 * start-up scrub's. Holds one listing in memory (name and version per blob).
 */
export class BlobWatch {
  #previous: Listing | undefined;
  #timer: NodeJS.Timeout | undefined;
  #polling: Promise<void> | undefined;

  constructor(
    private readonly blobs: Pick<BlobStore, 'list'>,
    private readonly onChange: (names: string[]) => Promise<void>,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  /** Lists now (the baseline), then every `intervalSeconds`. */
  start(intervalSeconds: number): void {
    void this.poll();
    this.#timer = setInterval(() => void this.poll(), intervalSeconds * 1000);
    this.#timer.unref();
  }

  /**
   * One round: list, compare with the round before, hand over what changed; resolves once
   * those are checked. A round still running when the next is due is not doubled.
   */
  poll(): Promise<void> {
    this.#polling ??= this.#round()
      .catch((err: unknown) => this.logger.warn({ err }, 'listing the storage failed'))
      .finally(() => (this.#polling = undefined));
    return this.#polling;
  }

  /** Stops listing; waits for a round in progress. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#polling;
  }

  async #round(): Promise<void> {
    const current: Listing = new Map();
    for await (const entry of this.blobs.list()) current.set(entry.name, entry.version);
    const previous = this.#previous;
    this.#previous = current;
    if (!previous) return;
    const changed: string[] = [];
    for (const [name, version] of previous) {
      if (current.get(name) !== version) changed.push(name);
    }
    if (changed.length > 0) await this.onChange(changed);
  }
}
