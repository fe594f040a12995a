import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import { deleteMessagesBefore } from '../messages/message.repository.js';

/** Contract: the sweep runs hourly. */
export const RETENTION_INTERVAL_MS = 3_600_000;
/** Rows per delete statement: short transactions, so sends never wait long on the sweep. */
export const RETENTION_BATCH = 1_000;
const DAY_MS = 86_400_000;

/** What the retention sweep needs. */
export interface RetentionDeps {
  db: Kysely<Database>;
  logger: Logger;
  now: () => number;
  /** `message_retention_days`; 0 keeps messages forever. */
  retentionDays: number;
  intervalMs?: number;
  batch?: number;
}

/**
 * Deletes messages older than the retention period, batch by batch until none is left;
 * returns how many went. Each batch is its own statement, so the sweep holds no long lock.
 */
export async function sweepExpiredMessages(deps: RetentionDeps): Promise<number> {
  if (deps.retentionDays <= 0) return 0;
  const cutoff = new Date(deps.now() - deps.retentionDays * DAY_MS);
  const batch = deps.batch ?? RETENTION_BATCH;
  let total = 0;
  for (;;) {
    const deleted = await deleteMessagesBefore(deps.db, cutoff, batch);
    total += deleted;
    if (deleted < batch) return total;
  }
}

/** A running sweep schedule. */
export interface RetentionWorker {
  /** Stops scheduling and waits for a sweep in progress. */
  stop(): Promise<void>;
}

/** Sweeps once at start, then every hour; nothing to do when retention is off. */
export function startRetention(deps: RetentionDeps): RetentionWorker {
  if (deps.retentionDays <= 0) return { stop: () => Promise.resolve() };
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const run = (): void => {
    running = running.then(async () => {
      if (stopped) return;
      try {
        const deleted = await sweepExpiredMessages(deps);
        if (deleted > 0) deps.logger.info({ deleted }, 'expired messages deleted');
      } catch (err) {
        deps.logger.error({ err }, 'retention sweep failed');
      }
    });
  };
  run();
  const timer = setInterval(run, deps.intervalMs ?? RETENTION_INTERVAL_MS);
  timer.unref();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
