import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import { relayErrors } from '../errors.js';
import type { PubSub } from '../pubsub/pubsub.port.js';
import { toRelayed, type RelayedMessage } from './message.model.js';
import { insertMessageBatch, type InsertedMessage } from './message.repository.js';

/** Sends written per statement, and about how much envelope text one statement may carry. */
const MAX_BATCH_SENDS = 256;
const MAX_BATCH_CHARS = 4 * 1024 * 1024;
const FOREIGN_KEY_VIOLATION = '23503';

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
}

interface Pending {
  row: MessageToWrite;
  resolve: (stored: StoredSend) => void;
  reject: (err: unknown) => void;
}

function isForeignKeyViolation(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === FOREIGN_KEY_VIOLATION;
}

/**
 * This instance's one writer of messages. Sends queue here and one loop stores them in
 * batches: per batch one statement (its own transaction) takes the global writing lock,
 * inserts every row (seqs in queue order) and rings the other instances' doorbell at
 * commit; the rows then go to this instance's streams in seq order. Under load a batch fills
 * while the previous one commits, so a send costs a fraction of a round trip and of a
 * WAL flush, and seq order equals commit order across all instances.
 */
export class MessageWriter {
  #queue: Pending[] = [];
  #draining: Promise<void> | undefined;
  #stopped = false;

  constructor(private readonly deps: MessageWriterDeps) {}

  /** Stores one message; rejects with 503 once the writer stopped, 404 for an unknown recipient. */
  send(row: MessageToWrite): Promise<StoredSend> {
    if (this.#stopped)
      return Promise.reject(relayErrors.unavailable('the server is shutting down'));
    return new Promise<StoredSend>((resolve, reject) => {
      this.#queue.push({ row, resolve, reject });
      this.#draining ??= this.#drain();
    });
  }

  /** Refuses new sends and waits until every queued one is stored. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#draining;
  }

  async #drain(): Promise<void> {
    try {
      // Let the sends of the current tick join the first batch.
      await Promise.resolve();
      while (this.#queue.length > 0) {
        await this.#writeBatch(this.#takeBatch());
      }
    } finally {
      // Cleared in the same turn as the last look at the queue, so a later send drains anew.
      this.#draining = undefined;
    }
  }

  #takeBatch(): Pending[] {
    let chars = 0;
    let n = 0;
    while (n < this.#queue.length && n < MAX_BATCH_SENDS) {
      chars += this.#queue[n]!.row.envelope.length;
      if (n > 0 && chars > MAX_BATCH_CHARS) break;
      n += 1;
    }
    return this.#queue.splice(0, n);
  }

  async #writeBatch(batch: Pending[]): Promise<void> {
    let stored: InsertedMessage[];
    try {
      stored = await this.#store(batch);
    } catch (err) {
      if (isForeignKeyViolation(err) && batch.length > 1) {
        // A recipient vanished between its check and the batch: only its own send may fail.
        for (const one of batch) await this.#writeBatch([one]);
        return;
      }
      const failure = isForeignKeyViolation(err) ? relayErrors.unknownHandle() : err;
      for (const p of batch) p.reject(failure);
      return;
    }
    const messages = stored.map(toRelayed);
    try {
      this.deps.pubsub.deliver(messages);
    } catch (err) {
      // Stored is stored: the sends succeed; a stream that missed a row resumes from its id.
      this.deps.logger.error({ err }, 'failed to hand stored messages to the streams');
    }
    batch.forEach((p, i) => p.resolve({ message: messages[i]!, hasPush: stored[i]!.has_push }));
  }

  async #store(batch: Pending[]): Promise<InsertedMessage[]> {
    const stored = await insertMessageBatch(
      this.deps.db,
      batch.map((p) => p.row),
      this.deps.pubsub.notifyChannel,
    );
    if (
      stored.length !== batch.length ||
      stored.some((s, i) => s.recipient !== batch[i]!.row.recipient)
    ) {
      throw new Error('stored messages do not match the batch order');
    }
    return stored;
  }
}
