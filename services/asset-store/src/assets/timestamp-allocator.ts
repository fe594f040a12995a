import { GroupCommit } from '@svc/database';
import type { TimestampSource } from './timestamp-issuer.js';

interface Waiter {
  resolve: (timestamp: number) => void;
  reject: (err: unknown) => void;
}

/** Takes `count` timestamps at `clockMs` or later and answers the last (one round trip). */
export type AllocateTimestamps = (clockMs: number, count: number) => Promise<number>;

/** Callers served by one allocation at most. */
const MAX_BLOCK = 1000;

/**
 * Timestamps from the index's server, shared by every instance on it: one row, updated
 * under its lock, so they are unique and strictly increasing across instances (issue 27).
 * The callers that ask while an allocation is out wait and are served by the next one
 * together (a block of consecutive values, in the order they asked): one round trip per
 * group, not per ingest. A block is taken only for callers already waiting, so no
 * timestamp is held back and one instance never issues below what another issued earlier.
 */
export class TimestampAllocator implements TimestampSource {
  readonly #groups: GroupCommit<Waiter>;

  constructor(clock: () => number, allocate: AllocateTimestamps) {
    this.#groups = new GroupCommit<Waiter>({
      maxInFlight: 1,
      take: (queue) => queue.splice(0, MAX_BLOCK),
      write: async (batch) => {
        const last = await allocate(Math.floor(clock()), batch.length);
        const first = last - batch.length + 1;
        batch.forEach((w, i) => w.resolve(first + i));
      },
      fail: (batch, err) => batch.forEach((w) => w.reject(err)),
    });
  }

  next(): Promise<number> {
    return new Promise((resolve, reject) => this.#groups.add({ resolve, reject }));
  }
}
