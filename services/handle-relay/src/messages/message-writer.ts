import { GroupCommit, isForeignKeyViolation, takeFront } from '@svc/database';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import { relayErrors } from '../errors.js';
import type { PubSub } from '../pubsub/pubsub.port.js';
import { toRelayed, type RelayedMessage, type StoredMessage } from './message.model.js';
import { insertMessageBatch } from './message.repository.js';
import type { RelayMetrics } from '../metrics/relay-metrics.js';

/** Sends written per statement, and about how much envelope text one statement may carry. */
const MAX_BATCH_SENDS = 256;
const MAX_BATCH_CHARS = 4 * 1024 * 1024;
/** Batch statements under way at once: one committing, one queued at the lock behind it. */
const MAX_STATEMENTS_IN_FLIGHT = 2;

/** One message to store. */
export interface MessageToWrite {
  recipient: string;
  /** The envelope's JSON text. */
  envelope: string;
  created_at: Date;
}

/** A stored and announced message, and whether Web Push has anyone to tell. */
export interface StoredSend {
  message: RelayedMessage;
  hasPush: boolean;
}

/** What the writer needs. */
export interface MessageWriterDeps {
  db: Kysely<Database>;
  pubsub: PubSub;
  logger: Logger;
  /** Messages stored, for `/metrics`. */
  metrics?: Pick<RelayMetrics, 'messagesStored'>;
}

interface Pending {
  row: MessageToWrite;
  /** Set when the send must be a statement of its own (its batch failed a foreign key). */
  alone?: boolean;
  resolve: (stored: StoredSend) => void;
  reject: (err: unknown) => void;
}

/** What became of one batch: stored, refused, or put back to be retried send by send. */
type BatchOutcome = { stored: StoredRow[] } | { failed: unknown } | { requeued: true };

/** A row as stored, and whether its recipient has push subscriptions. */
type StoredRow = StoredMessage & { has_push: boolean };

/**
 * This instance's one writer of messages. Sends queue here and are stored in batches: per
 * batch one statement (its own transaction) takes the global writing lock, inserts every
 * row (seqs in the batch's order) and rings the other instances' doorbell at commit. Two
 * statements may be in flight: the second waits at the lock on the server, so it starts the
 * moment the first commits instead of one round trip later, while the next batch fills.
 * Batches are handed to this instance's streams in the order they were issued, so a batch
 * that happens to answer first never overtakes an earlier one. Under load a send costs a
 * fraction of a round trip and of a WAL flush, and seq order equals commit order across
 * all instances.
 */
export class MessageWriter {
  readonly #commit = new GroupCommit<Pending>({
    maxInFlight: MAX_STATEMENTS_IN_FLIGHT,
    // Let the sends of the current tick join the same batch.
    gather: 'tick',
    take: (queue) => this.#takeBatch(queue),
    write: (batch) => this.#issue(batch),
    fail: (batch, err) => batch.forEach((p) => p.reject(err)),
  });
  /** Settles once every issued batch has been handed on, in issue order. */
  #handedOn: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(private readonly deps: MessageWriterDeps) {}

  /** Stores one message; rejects with 503 once the writer stopped, 404 for an unknown recipient. */
  send(row: MessageToWrite): Promise<StoredSend> {
    if (this.#stopped) return Promise.reject(relayErrors.shuttingDown());
    return new Promise<StoredSend>((resolve, reject) => {
      this.#commit.add({ row, resolve, reject });
    });
  }

  /** Refuses new sends and waits until every queued one is stored. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#commit.idle();
    await this.#handedOn;
  }

  /** Writes a batch; its hand-on waits for every batch issued before it. */
  #issue(batch: Pending[]): Promise<void> {
    const written = this.#write(batch);
    const earlier = this.#handedOn;
    this.#handedOn = written.then(async (outcome) => {
      await earlier;
      this.#handOn(batch, outcome);
    });
    return written.then(() => undefined);
  }

  /** A send put back alone goes alone; else the longest run within the batch limits. */
  #takeBatch(queue: Pending[]): Pending[] {
    if (queue[0]?.alone) return queue.splice(0, 1);
    return takeFront(queue, {
      maxItems: MAX_BATCH_SENDS,
      maxWeight: MAX_BATCH_CHARS,
      weight: (p) => p.row.envelope.length,
      stopBefore: (p) => p.alone === true,
    });
  }

  /** Stores a batch; never rejects. */
  async #write(batch: Pending[]): Promise<BatchOutcome> {
    try {
      return { stored: await this.#store(batch) };
    } catch (err) {
      if (isForeignKeyViolation(err) && batch.length > 1) {
        // A recipient vanished between its check and the batch: only its own send may fail.
        // Put back in front, the sends are retried one per statement and are issued (so
        // handed on) after the batch already in flight, keeping delivery in seq order.
        for (const send of batch) send.alone = true;
        this.#commit.requeue(batch);
        return { requeued: true };
      }
      return { failed: isForeignKeyViolation(err) ? relayErrors.unknownHandle() : err };
    }
  }

  /** Hands stored rows to the streams, then answers the sends. */
  #handOn(batch: Pending[], outcome: BatchOutcome): void {
    if ('failed' in outcome) {
      this.deps.pubsub.recheck();
      for (const send of batch) send.reject(outcome.failed);
      return;
    }
    if (!('stored' in outcome)) return;
    const messages = outcome.stored.map(toRelayed);
    this.deps.metrics?.messagesStored(messages.length);
    try {
      this.deps.pubsub.deliver(messages);
    } catch (err) {
      // Stored is stored: the sends succeed; a stream that missed a row resumes from its id.
      this.deps.logger.error({ err }, 'failed to hand stored messages to the streams');
    }
    batch.forEach((p, i) =>
      p.resolve({ message: messages[i]!, hasPush: outcome.stored[i]!.has_push }),
    );
  }

  async #store(batch: Pending[]): Promise<StoredRow[]> {
    const rows = batch.map(({ row }) => ({
      recipient: row.recipient,
      envelope: row.envelope,
      created_text: row.created_at.toISOString(),
    }));
    const stored = await insertMessageBatch(this.deps.db, rows, this.deps.pubsub.doorbell);
    if (
      stored.length !== batch.length ||
      stored.some((s, i) => s.recipient !== batch[i]!.row.recipient)
    ) {
      throw new Error('stored messages do not match the batch order');
    }
    return stored.map(({ seq, has_push }, i) => ({ ...rows[i]!, seq, has_push }));
  }
}
