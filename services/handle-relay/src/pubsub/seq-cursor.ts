import type { Logger } from 'pino';
import type { RelayedMessage } from '../messages/message.model.js';
import type { ListenerRegistry } from './listener-registry.js';

/** Rows read per catch-up query. */
const CATCH_UP_PAGE = 1_000;

/** What the cursor needs from outside. */
export interface SeqCursorDeps {
  listeners: ListenerRegistry;
  /** Stored messages of every recipient after `afterSeq`, ascending, at most `limit`. */
  readAfter: (afterSeq: number, limit: number) => Promise<RelayedMessage[]>;
  logger: Logger;
  /** The highest seq stored when the instance started: rows up to it are not live. */
  lastSeen: number;
}

/**
 * One instance's position in the global seq order, shared by the adapters that hear of other
 * instances' batches (LISTEN/NOTIFY, NATS). Writers number and commit their batches under
 * one global lock, so rows become visible in seq order with no gap, and a single cursor,
 * `lastSeen`, is enough: a batch that directly follows it is handed to the local listeners
 * as it came (from this instance's writer, or carried by a notification); anything else
 * (a batch after a gap, one that carried no rows, a reconnect, a poll) makes the cursor
 * read the rows above it from the store. A row is dispatched only when above the cursor,
 * so no row goes out twice, whichever path reaches it first.
 */
export class SeqCursor {
  #lastSeen: number;
  #bellRang = false;
  #catchingUp: Promise<void> | undefined;
  #closed = false;

  constructor(private readonly deps: SeqCursorDeps) {
    this.#lastSeen = deps.lastSeen;
  }

  /** The last seq handed to the local listeners. */
  get lastSeen(): number {
    return this.#lastSeen;
  }

  /**
   * Hands a batch (consecutive seqs, ascending) to the listeners when it directly follows
   * the cursor; otherwise reads from the store up to its end, so rows in between are not
   * skipped.
   */
  offer(messages: readonly RelayedMessage[]): void {
    const first = messages[0];
    if (!first) return;
    if (first.seq - 1 > this.#lastSeen) this.want(messages.at(-1)!.seq);
    else this.#dispatch(messages);
  }

  /** Makes sure rows up to `seq` (everything stored, with `Infinity`) get read; one reader. */
  want(seq: number): void {
    if (seq <= this.#lastSeen || this.#closed) return;
    this.#bellRang = true;
    this.#catchingUp ??= this.#catchUp()
      .catch((err: unknown) => {
        // The cursor did not move: the next notification, poll or reconnect reads the same rows.
        this.deps.logger.error({ err }, 'failed to read messages from the store');
      })
      .finally(() => {
        this.#catchingUp = undefined;
        // A want that came after the loop's last look.
        if (this.#bellRang && !this.#closed) this.want(Infinity);
      });
  }

  /** Stops reading; waits for a read under way. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#catchingUp;
  }

  #dispatch(messages: readonly RelayedMessage[]): void {
    for (const m of messages) {
      if (m.seq <= this.#lastSeen) continue;
      this.#lastSeen = m.seq;
      this.deps.listeners.deliver(m.recipient, m);
    }
  }

  /** Reads rows above the cursor until none are left, again if a want came meanwhile. */
  async #catchUp(): Promise<void> {
    while (!this.#closed && this.#bellRang) {
      this.#bellRang = false;
      let rows: RelayedMessage[];
      do {
        rows = await this.deps.readAfter(this.#lastSeen, CATCH_UP_PAGE);
        this.#dispatch(rows);
      } while (!this.#closed && rows.length === CATCH_UP_PAGE);
    }
  }
}
