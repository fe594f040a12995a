/**
 * What one writer decides about its batches; `GroupCommit` runs the queue around them.
 * `T` is the writer's own queue entry, which carries whatever the writer answers it with.
 */
export interface GroupCommitPolicy<T> {
  /** Batches written at once (each its own statement or transaction). */
  maxInFlight: number;
  /**
   * Removes the next batch from the front of `queue` and returns it. It may answer some of
   * the entries it removes itself and return fewer, even none, but must remove at least one.
   */
  take(queue: T[]): T[];
  /** Writes one batch and answers its entries; its slot is free again once this settles. */
  write(batch: T[]): Promise<void>;
  /** Answers the entries of a batch whose `write` rejected (a writer's own should not). */
  fail(batch: T[], err: unknown): void;
  /**
   * `now` (the default): an entry added while a slot is free starts a batch at once.
   * `tick`: the first batch waits for the end of the current tick, so that the entries
   * added in the same turn of the event loop go in together.
   */
  gather?: 'now' | 'tick';
}

/**
 * Group commit: entries queue here while the batches before them are written, then go in
 * together, so under load an entry costs a fraction of a round trip and of a commit (one
 * WAL flush per batch). With more than one batch in flight, the next statement can wait on
 * the server instead of one round trip away. Batches start in queue order; in what order
 * they finish, and what their entries are answered, is the writer's policy.
 */
export class GroupCommit<T> {
  readonly #policy: GroupCommitPolicy<T>;
  #queue: T[] = [];
  #inFlight = 0;
  #fillQueued = false;
  #idleWaiters: (() => void)[] = [];

  constructor(policy: GroupCommitPolicy<T>) {
    if (!(policy.maxInFlight >= 1)) throw new Error('maxInFlight must be at least 1');
    this.#policy = policy;
  }

  /** Entries queued and not yet taken into a batch. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Batches being written now. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Queues one entry; it is taken into a batch as soon as a slot is free. */
  add(entry: T): void {
    this.#queue.push(entry);
    if (this.#policy.gather !== 'tick') {
      this.#fill();
      return;
    }
    if (this.#fillQueued) return;
    this.#fillQueued = true;
    queueMicrotask(() => {
      this.#fillQueued = false;
      this.#fill();
    });
  }

  /**
   * Puts entries back at the front of the queue, ahead of later ones. Meant for `write`,
   * while its batch holds a slot: they are taken when that batch (or another) settles.
   */
  requeue(entries: readonly T[]): void {
    this.#queue.unshift(...entries);
  }

  /** Settles once nothing is queued and no batch is in flight. */
  idle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Starts batches while a slot is free; each batch that settles calls it again. */
  #fill(): void {
    while (this.#queue.length > 0 && this.#inFlight < this.#policy.maxInFlight) {
      const before = this.#queue.length;
      const batch = this.#policy.take(this.#queue);
      if (this.#queue.length >= before) throw new Error('GroupCommit: take removed no entry');
      if (batch.length === 0) continue;
      this.#inFlight += 1;
      void this.#run(batch);
    }
    if (this.#isIdle()) for (const wake of this.#idleWaiters.splice(0)) wake();
  }

  async #run(batch: T[]): Promise<void> {
    try {
      await this.#policy.write(batch);
    } catch (err) {
      this.#policy.fail(batch, err);
    } finally {
      this.#inFlight -= 1;
      this.#fill();
    }
  }

  #isIdle(): boolean {
    return this.#queue.length === 0 && this.#inFlight === 0 && !this.#fillQueued;
  }
}

/** How much `takeFront` takes at most. */
export interface TakeFrontLimits<T> {
  /** Entries per batch at most. */
  maxItems: number;
  /** With `weight`: the batch's total weight at most, though its first entry always goes. */
  maxWeight?: number;
  weight?: (entry: T) => number;
  /** An entry for which this holds ends the batch before it (and is not taken). */
  stopBefore?: (entry: T) => boolean;
}

/** The common `take`: the longest run from the front of `queue` within the limits. */
export function takeFront<T>(queue: T[], limits: TakeFrontLimits<T>): T[] {
  const { maxItems, maxWeight = Infinity, weight, stopBefore } = limits;
  let n = 0;
  let total = 0;
  while (n < queue.length && n < maxItems) {
    const entry = queue[n]!;
    if (stopBefore?.(entry)) break;
    if (weight) {
      total += weight(entry);
      if (n > 0 && total > maxWeight) break;
    }
    n += 1;
  }
  return queue.splice(0, n);
}
