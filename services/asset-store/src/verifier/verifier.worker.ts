import { ProcessLock, type InstanceLock } from '@svc/database';
import type { Logger } from 'pino';
import type { OwnRenames } from '../storage/fs/own-renames.js';
import { StorageWatch } from './storage-watcher.js';
import type { Verifier } from './verifier.service.js';

/** What runs the verifier in the background. */
export interface VerifierWorkerOptions {
  verifier: Verifier;
  root: string;
  /** Renames the service announced: their watch events are its own echo, not changes. */
  ownRenames?: OwnRenames;
  /** Hours between full scrubs; 0 turns the periodic scrub off. */
  intervalHours: number;
  /**
   * The scrub's lease: held by each start-up and periodic scrub, across the instances on one
   * database server (`instanceLock`), else within this process. A scrub that finds it held
   * is skipped: the other instance's covers the same files.
   */
  scrubLock?: InstanceLock;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Seconds from a change to its check done, for `/metrics`. */
  onChangeChecked?: (lagSeconds: number) => void;
  /** Watch debounce, shortened by tests. */
  debounce?: { quietMs: number; maxWaitMs: number };
}

/**
 * The verifier's three triggers: a start-up scrub (not awaited: the service serves
 * meanwhile), a debounced watch of the storage root, and a periodic scrub.
 */
export class VerifierWorker {
  /** Resolves once the storage root is being watched. */
  readonly ready: Promise<void>;
  readonly #running = new Set<Promise<unknown>>();
  readonly #watch: StorageWatch;
  readonly #timer: NodeJS.Timeout | undefined;
  #scrubbing: Promise<unknown> | undefined;
  readonly #scrubLock: InstanceLock;

  /** Starts the worker: watch, start-up scrub and, when asked for, the periodic scrub. */
  static start(options: VerifierWorkerOptions): VerifierWorker {
    return new VerifierWorker(options);
  }

  private constructor(private readonly options: VerifierWorkerOptions) {
    this.#scrubLock = options.scrubLock ?? new ProcessLock();
    this.#watch = new StorageWatch(
      options.root,
      (paths, since) =>
        void this.#track(
          options.verifier
            .verifyPaths(paths)
            .then(() => options.onChangeChecked?.((performance.now() - since) / 1000)),
        ),
      options.logger,
      options.debounce,
      options.ownRenames,
    );
    this.ready = this.#watch.ready;
    this.#scrub('start-up');
    // Node timers overflow past 2^31-1 ms (about 24.8 days) and would fire at once instead.
    const everyMs = Math.min(options.intervalHours * 3_600_000, 2 ** 31 - 1);
    this.#timer =
      options.intervalHours > 0 ? setInterval(() => this.#scrub('periodic'), everyMs) : undefined;
    this.#timer?.unref();
  }

  /** Stops watching and scheduling, and waits for the checks in progress to end. */
  async stop(): Promise<void> {
    this.#watch.close();
    clearInterval(this.#timer);
    this.options.verifier.stop();
    await Promise.all(this.#running);
  }

  #track(work: Promise<unknown>): Promise<unknown> {
    const settled = work.catch((err: unknown) =>
      this.options.logger.error({ err }, 'verifier failed'),
    );
    this.#running.add(settled);
    void settled.finally(() => this.#running.delete(settled));
    return settled;
  }

  #scrub(reason: string): void {
    // A periodic tick that finds the last scrub still running skips rather than piling up.
    if (this.#scrubbing) return;
    const { verifier, logger } = this.options;
    const scrubbed = this.#scrubLock.tryRun(async () => {
      logger.info({ reason }, 'scrub started');
      const result = await verifier.scrub();
      // Said while the lease is still held, so two instances' logged spans never overlap.
      logger.info({ reason, ...result }, 'scrub finished');
    });
    this.#scrubbing = this.#track(
      scrubbed.then((outcome) => {
        if (!outcome.ran) logger.info({ reason }, 'scrub skipped: another instance is scrubbing');
      }),
    ).finally(() => (this.#scrubbing = undefined));
  }
}
