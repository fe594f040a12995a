import { AppError } from '@svc/envelope';
import type { Kysely } from 'kysely';
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { AssetRecord } from '../assets/asset-record.js';
import { toAssetRecord } from '../assets/asset.model.js';
import type { AssetRow } from '../assets/asset.table.js';
import type { Database } from '../db/database.js';
import type { ChangeSignal } from './change-signal.js';
import { eventHead, eventsAfter, pruneEvents } from './change.repository.js';
import type { AssetEventRow } from './change.table.js';
import type { EventType } from './event-types.js';

/** One change as the feed, the stream and the webhooks show it. */
export interface ChangeEvent {
  /** The event's cursor: opaque to clients (a position, in decimal). */
  id: string;
  type: EventType;
  hash: string;
  /** Epoch milliseconds. */
  at: number;
  /** The record after the change, or null for `asset.purged`. */
  data: AssetRecord | null;
}

/** One page of the feed. */
export interface ChangePage {
  events: ChangeEvent[];
  /** The last event's id, or the cursor given when there was none. */
  next: string;
}

const DAY_MS = 86_400_000;
/** Events deleted per statement by retention: bounds each transaction. */
const PRUNE_BATCH = 10_000;

/** The one mapper from an event row to the event clients see. */
export function toChangeEvent(row: AssetEventRow): ChangeEvent {
  return {
    id: String(row.pos),
    type: row.type as EventType,
    hash: row.hash,
    at: Number(row.at),
    data: row.data === null ? null : toAssetRecord(row.data as unknown as AssetRow),
  };
}

/** A cursor older than the events kept (`changes_retention_days`). */
export const cursorGone = () =>
  new AppError(
    410,
    'gone',
    'cursor too old: the events after it are no longer kept; start again without one',
  );

/**
 * The change feed: pages of committed events in commit order, a wait for the next ones,
 * and retention. The events themselves are written by the index's triggers.
 */
export class ChangeFeed {
  readonly #closing = new AbortController();

  constructor(
    private readonly deps: {
      db: Kysely<Database>;
      signal: ChangeSignal;
      clock: () => number;
      retentionDays: number;
      logger: Pick<Logger, 'info' | 'warn'>;
    },
  ) {
    // Every open stream listens for the shutdown: as many listeners as streams, not a leak.
    setMaxListeners(0, this.#closing.signal);
  }

  /**
   * The events after `after` (from the oldest kept when absent), at most `limit`; 410 when
   * events after `after` were pruned.
   */
  async page(after: number | undefined, limit: number): Promise<ChangePage> {
    const { rows, prunedThrough } = await eventsAfter(this.deps.db, after ?? 0, limit);
    if (after !== undefined && after < prunedThrough) throw cursorGone();
    const events = rows.map(toChangeEvent);
    const last = events.at(-1);
    if (last) this.deps.signal.saw(Number(last.id));
    return { events, next: last ? last.id : String(after ?? 0) };
  }

  /** The last position given: where a stream with no cursor starts. */
  async head(): Promise<number> {
    const head = await eventHead(this.deps.db);
    this.deps.signal.saw(head.last);
    return head.last;
  }

  /** Resolves once events beyond `after` may be there, after `ms`, or on `abort`. */
  wait(after: number, ms: number, abort?: AbortSignal): Promise<void> {
    return this.deps.signal.wait(after, ms, abort);
  }

  /** Aborted at shutdown: open streams end so the drain need not wait for them. */
  get closing(): AbortSignal {
    return this.#closing.signal;
  }

  /** Ends the open streams (before the drain). */
  stop(): void {
    this.#closing.abort();
  }

  /** Deletes the events older than `changes_retention_days`; returns how many went. */
  async prune(): Promise<number> {
    const cutoff = this.deps.clock() - this.deps.retentionDays * DAY_MS;
    let total = 0;
    for (;;) {
      const n = await pruneEvents(this.deps.db, cutoff, PRUNE_BATCH);
      total += n;
      if (n < PRUNE_BATCH) break;
    }
    if (total > 0) this.deps.logger.info({ pruned: total }, 'change feed: old events pruned');
    return total;
  }
}
