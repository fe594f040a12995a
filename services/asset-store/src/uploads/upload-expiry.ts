import type { Logger } from 'pino';
import type { AssetUploadStore } from './upload-store.js';

/** The sweep runs this often at most, and at least a few times per expiry period. */
const MAX_SWEEP_INTERVAL_MS = 60 * 60 * 1000;
const MIN_SWEEP_INTERVAL_MS = 1000;

/**
 * Deletes expired resumable uploads (`upload_expiry_hours`): once at start, then
 * periodically. A sweep that fails is logged and tried again at the next tick.
 */
export class UploadExpiry {
  private constructor(private readonly timer: NodeJS.Timeout) {}

  /** Sweeps now (awaited: leftovers are gone before the first request), then on a timer. */
  static async start(store: AssetUploadStore, logger: Logger): Promise<UploadExpiry> {
    const sweep = async () => {
      try {
        const removed = await store.deleteExpired();
        if (removed > 0) logger.info({ removed }, 'removed expired resumable uploads');
      } catch (err) {
        logger.error({ err }, 'resumable upload expiry sweep failed');
      }
    };
    await sweep();
    const every = Math.max(
      MIN_SWEEP_INTERVAL_MS,
      Math.min(MAX_SWEEP_INTERVAL_MS, store.getExpiration() / 4),
    );
    const timer = setInterval(() => void sweep(), every);
    timer.unref();
    return new UploadExpiry(timer);
  }

  /** Stops the periodic sweep. */
  stop(): void {
    clearInterval(this.timer);
  }
}
