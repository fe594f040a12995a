import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import { recordOutcomes, type Outcome } from './webhook-queue.repository.js';

/** Outcomes of attempts ending within this long are recorded in one transaction. */
const RECORD_MS = 25;
/** Outcomes recorded per transaction at most. */
const RECORD_BATCH = 500;

/**
 * The outcomes of a dispatcher's attempts, written in shared transactions: under a flow of
 * deliveries one transaction records many (one commit each cost the index more than the
 * deliveries). `failed` is told when the index did not take a batch.
 */
export class OutcomeRecorder {
  #pending: { outcome: Outcome; done: () => void }[] = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: {
      db: Kysely<Database>;
      logger: Pick<Logger, 'warn'>;
      failed: () => void;
    },
  ) {}

  /** Queues an outcome for the next shared transaction; resolves once it was tried. */
  record(outcome: Outcome): Promise<void> {
    return new Promise((done) => {
      this.#pending.push({ outcome, done });
      if (this.#timer === undefined) {
        this.#timer = setTimeout(() => void this.#flush(), RECORD_MS);
      }
    });
  }

  async #flush(): Promise<void> {
    this.#timer = undefined;
    const batch = this.#pending.splice(0, RECORD_BATCH);
    if (this.#pending.length > 0) {
      this.#timer = setTimeout(() => void this.#flush(), RECORD_MS);
    }
    try {
      await recordOutcomes(
        this.deps.db,
        batch.map((b) => b.outcome),
      );
    } catch (err) {
      this.deps.failed();
      this.deps.logger.warn(
        { err, deliveries: batch.length },
        'webhooks: could not record delivery outcomes',
      );
    }
    for (const b of batch) b.done();
  }
}
