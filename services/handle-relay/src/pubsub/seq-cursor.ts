import type { Logger } from 'pino';
import type { RelayedMessage } from '../messages/message.model.js';
import type { ListenerRegistry } from './listener-registry.js';

/** Rows read per catch-up query. */
const CATCH_UP_PAGE = 1_000;
/**
 * How long a batch that does not directly follow the cursor waits for the batches before it
 * before they are read from the store: NATS brings different instances' batches in no
 * particular order, and the missing one is usually a millisecond behind.
 */
const GAP_WAIT_MS = 10;

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
 * as it came (from this instance's writer, or carried by a notification). A batch after a
 * gap waits up to GAP_WAIT_MS for the batches before it, and goes out after them; if they do
 * not come, the rows above the cursor are read from the store, as they are for a batch that
 * carried no rows, a reconnect or a poll. A row is dispatched only when above the cursor, so
 * no row goes out twice, whichever path reaches it first.
 */
export class SeqCursor {
  #lastSeen: number;
  #bellRang = false;
  #catchingUp: Promise<void> | undefined;
  #closed = false;
  /** Batches after a gap, by their first seq, waiting for the batches before them. */
  readonly #pending = new Map<number, readonly RelayedMessage[]>();
  #gapTimer: NodeJS.Timeout | undefined;

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
    if (!first || this.#closed) return;
    if (first.seq - 1 <= this.#lastSeen) {
      this.#dispatch(messages);
      return;
    }
    this.#pending.set(first.seq, messages);
    this.#gapTimer ??= setTimeout(() => {
      this.#gapTimer = undefined;
      let last = 0;
      for (const batch of this.#pending.values()) last = Math.max(last, batch.at(-1)!.seq);
      // Kept: a batch that turns up before the read ends still goes out in order.
      this.want(last);
    }, GAP_WAIT_MS);
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
    clearTimeout(this.#gapTimer);
    this.#pending.clear();
    await this.#catchingUp;
  }

  /** Hands on the rows above the cursor, then every waiting batch that now follows it. */
  #dispatch(messages: readonly RelayedMessage[]): void {
    this.#dispatchRows(messages);
    let progressed = true;
    while (progressed && this.#pending.size > 0) {
      progressed = false;
      for (const [firstSeq, batch] of this.#pending) {
        if (batch.at(-1)!.seq <= this.#lastSeen) {
          this.#pending.delete(firstSeq);
        } else if (firstSeq - 1 <= this.#lastSeen) {
          this.#pending.delete(firstSeq);
          this.#dispatchRows(batch);
          progressed = true;
        }
      }
    }
    if (this.#pending.size === 0 && this.#gapTimer) {
      clearTimeout(this.#gapTimer);
      this.#gapTimer = undefined;
    }
  }

  #dispatchRows(messages: readonly RelayedMessage[]): void {
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
