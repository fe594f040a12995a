import { GroupCommit, isLockTimeout } from '@svc/database';
import type { TimestampSource } from './timestamp-issuer.js';
import type { SoloIssuer } from './timestamp-solo.js';

interface Waiter {
  resolve: (timestamp: number) => void;
  reject: (err: unknown) => void;
}

/** The shared row, as the allocator uses it (`timestamp-allocator.repository.ts`). */
export interface TimestampRow {
  /** Takes `count` timestamps at `clockMs` or later and answers the last; undefined while an instance is solo. */
  allocate(clockMs: number, count: number): Promise<number | undefined>;
  /** Asks the solo instance to stop, then as `allocate`; throws a lock timeout after `waitMs`. */
  allocateAfterSolo(clockMs: number, count: number, waitMs: number): Promise<number>;
  /** Ends the session of a solo instance that does not let go (see the repository). */
  endSoloHolder(): Promise<boolean>;
}

/** Callers served by one allocation at most. */
const MAX_BLOCK = 1000;
/** How long one wait for a solo instance to stop lasts; asked again (it may have missed it). */
const SOLO_WAIT_MS = 250;
/**
 * Waits after which its session is ended: a solo instance that does not answer in 2 s is
 * stuck or cut off, and must not hold every other instance's ingests.
 */
const SOLO_WAITS_BEFORE_ENDING = 8;
/** Waits before the ingest fails (503). */
const SOLO_WAITS = 20;

/**
 * Timestamps from the index's server, shared by every instance on it: one row, updated
 * under its lock, so they are unique and strictly increasing across instances (issue 27).
 * The callers that ask while an allocation is out wait and are served by the next one
 * together (a block of consecutive values, in the order they asked): one round trip per
 * group, not per ingest. A block is taken only for callers already waiting, so no
 * timestamp is held back and one instance never issues below what another issued earlier.
 * An instance alone on the row for a while issues from memory instead (`SoloIssuer`).
 */
export class TimestampAllocator implements TimestampSource {
  readonly #groups: GroupCommit<Waiter>;

  constructor(
    private readonly clock: () => number,
    private readonly row: TimestampRow,
    private readonly solo?: SoloIssuer,
  ) {
    this.#groups = new GroupCommit<Waiter>({
      maxInFlight: 1,
      take: (queue) => queue.splice(0, MAX_BLOCK),
      write: async (batch) => {
        const last = await this.#allocate(batch.length);
        const first = last - batch.length + 1;
        batch.forEach((w, i) => w.resolve(first + i));
        this.solo?.countShared();
      },
      fail: (batch, err) => batch.forEach((w) => w.reject(err)),
    });
  }

  next(): Promise<number> {
    const solo = this.solo;
    if (!solo) return this.#shared();
    // Only with nothing out: a shared allocation behind the solo lock would take it back.
    if (solo.wantsToEnter && this.#groups.queued + this.#groups.inFlight === 0) {
      void solo.enter();
    }
    if (!solo.issuing) return this.#shared();
    return solo.next(this.clock).then((timestamp) => timestamp ?? this.#shared());
  }

  #shared(): Promise<number> {
    return new Promise((resolve, reject) => this.#groups.add({ resolve, reject }));
  }

  async #allocate(count: number): Promise<number> {
    const last = await this.row.allocate(Math.floor(this.clock()), count);
    if (last !== undefined) return last;
    for (let wait = 1; ; wait++) {
      try {
        return await this.row.allocateAfterSolo(Math.floor(this.clock()), count, SOLO_WAIT_MS);
      } catch (err) {
        if (!isLockTimeout(err) || wait >= SOLO_WAITS) throw err;
        if (wait === SOLO_WAITS_BEFORE_ENDING) await this.row.endSoloHolder();
      }
    }
  }
}
