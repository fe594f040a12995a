import type { Logger } from 'pino';
import type { OwnRenames } from '../storage/own-renames.js';
import { watchStorage, type StorageWatch } from './storage-watcher.js';
import type { Verifier } from './verifier.service.js';

/** What runs the verifier in the background. */
export interface VerifierWorkerOptions {
  verifier: Verifier;
  root: string;
  /** Renames the service announced: their watch events are its own echo, not changes. */
  ownRenames?: OwnRenames;
  /** Hours between full scrubs; 0 turns the periodic scrub off. */
  intervalHours: number;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Watch debounce, shortened by tests. */
  debounce?: { quietMs: number; maxWaitMs: number };
}

/** The running background verifier. */
export interface VerifierWorker {
  /** Resolves once the storage root is being watched. */
  ready: Promise<void>;
  /** Stops watching and scheduling, and waits for the checks in progress to end. */
  stop(): Promise<void>;
}

/**
 * Starts the verifier's three triggers: a start-up scrub (not awaited: the service serves
 * meanwhile), a debounced watch of the storage root, and a periodic scrub.
 */
export function startVerifier(options: VerifierWorkerOptions): VerifierWorker {
  const { verifier, logger } = options;
  const running = new Set<Promise<unknown>>();
  let scrubbing: Promise<unknown> | undefined;

  const track = (work: Promise<unknown>) => {
    const settled = work.catch((err: unknown) => logger.error({ err }, 'verifier failed'));
    running.add(settled);
    void settled.finally(() => running.delete(settled));
    return settled;
  };

  const scrub = (reason: string) => {
    // A periodic tick that finds the last scrub still running skips rather than piling up.
    if (scrubbing) return;
    scrubbing = track(
      verifier.scrub().then((report) => logger.info({ reason, ...report }, 'scrub finished')),
    ).finally(() => (scrubbing = undefined));
  };

  const watch: StorageWatch = watchStorage(
    options.root,
    (paths) => void track(verifier.verifyPaths(paths)),
    logger,
    options.debounce,
    options.ownRenames,
  );
  scrub('start-up');
  // Node timers overflow past 2^31-1 ms (about 24.8 days) and would fire at once instead.
  const everyMs = Math.min(options.intervalHours * 3_600_000, 2 ** 31 - 1);
  const timer =
    options.intervalHours > 0 ? setInterval(() => scrub('periodic'), everyMs) : undefined;
  timer?.unref();

  return {
    ready: watch.ready,
    async stop() {
      watch.close();
      clearInterval(timer);
      verifier.stop();
      await Promise.all(running);
    },
  };
}
