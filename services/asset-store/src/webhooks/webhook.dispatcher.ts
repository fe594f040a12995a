import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { ChangeFeed } from '../changes/change.service.js';
import type { Database } from '../db/database.js';
import type { WebhookMetrics } from './webhook-metrics.js';
import { OutcomeRecorder } from './webhook-outcomes.js';
import { WebhookSender } from './webhook-sender.js';
import {
  claimDue,
  fanOut,
  leaseOwners,
  nextDue,
  releaseLeases,
  releaseOwnLeases,
  type Attempt,
  type ClaimedDelivery,
} from './webhook-queue.repository.js';
import { hasWebhooks } from './webhook.repository.js';

/** A receiver has this long to answer 2xx (contract). */
const TIMEOUT_MS = 10_000;
/** A claimed delivery is this instance's for this long (well past the timeout). */
const LEASE_MS = 60_000;
/** Deliveries in flight per instance at most. */
const IN_FLIGHT = 128;
/** Events moved into each webhook's queue per transaction. */
const FAN_OUT_BATCH = 1000;
/** The loop looks again at least this often (a retry falling due, a lost wake-up). */
const IDLE_MS = 1_000;
/** How often the leases of instances that are gone are looked for. */
const RECLAIM_MS = 5_000;
/**
 * A gone instance's lease is freed once taken this long ago: its POST has timed out by
 * then, so it cannot reach the receiver after the retry (nor after the asset's next event).
 */
const RECLAIM_AFTER_MS = TIMEOUT_MS + 2_000;
/**
 * A turn of the loop starts at most this often: under a steady flow of events each turn
 * takes several (one fan-out, one claim for all) instead of one each; it adds at most this
 * to an event's way to its receiver.
 */
const MIN_TURN_MS = 50;
/** Retries double from `firstRetryMs` up to this. */
const MAX_BACKOFF_MS = 3_600_000;

/** The delay before retry number `attempts` (1 = the first retry), with up to 10% jitter. */
export function backoffMs(firstRetryMs: number, attempts: number): number {
  const base = Math.min(MAX_BACKOFF_MS, firstRetryMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(base * (1 + Math.random() * 0.1));
}

/** What the dispatcher needs. */
export interface DispatcherDeps {
  db: Kysely<Database>;
  changes: ChangeFeed;
  clock: () => number;
  logger: Pick<Logger, 'warn' | 'debug'>;
  metrics: WebhookMetrics;
  allowPrivate: boolean;
  retryHours: number;
  firstRetryMs: number;
  /** This instance, named on its leases, and whether another one is gone (its presence). */
  owner: { id: string; isGone(id: string): Promise<boolean> };
}

/**
 * Delivers the feed to the webhooks, at least once, one asset's events to one webhook in
 * order, from every instance at once: each moves new events into the webhooks' queues
 * (a webhook's row locked meanwhile) and takes due deliveries with a lease, the earliest
 * owed per webhook and asset only. Woken by the feed's signal, by a delivery ending, and
 * at least every second. A crash loses nothing: the queue is in the index, and a lease
 * left by a dead instance is freed once its POST would have timed out (the instance's
 * presence is gone), else it runs out.
 */
export class WebhookDispatcher {
  readonly #stop = new AbortController();
  /** Deliveries being sent (and their outcomes recorded), each with its queue row. */
  readonly #inFlight = new Map<Promise<void>, ClaimedDelivery>();
  readonly #sender: WebhookSender;
  readonly #outcomes: OutcomeRecorder;
  #kick: (() => void) | undefined;
  /** Ends the idle sleep (no webhooks yet) early. */
  #nudge: (() => void) | undefined;
  /** `wake()` came since the loop last asked whether there are webhooks (none lost meanwhile). */
  #woken = false;
  /** A delivery ended since the turn began: the next wait returns at once (no lost wake-up). */
  #ended = false;
  /** When the last turn began (`performance.now()`). */
  #turnAt = Number.NEGATIVE_INFINITY;
  #loop: Promise<void> | undefined;
  /** The head every webhook was brought up to. */
  #seen = 0;
  /** The head last read: the wait is for events beyond it. */
  #heard = 0;
  #failing = false;
  /**
   * The index failed a call: leases of ours may be held on deliveries nobody sends (a
   * claim committed but its answer was lost; an outcome not written). Freed on the next
   * turn the index answers, not after the whole lease.
   */
  #orphans = false;
  /** When the leases of gone instances were last looked for. */
  #reclaimed = Number.NEGATIVE_INFINITY;

  constructor(private readonly deps: DispatcherDeps) {
    this.#sender = new WebhookSender({
      allowPrivate: deps.allowPrivate,
      timeoutMs: TIMEOUT_MS,
      clock: deps.clock,
    });
    // An outcome not written: that delivery is tried again, its lease freed on the next
    // turn the index answers.
    this.#outcomes = new OutcomeRecorder({
      db: deps.db,
      logger: deps.logger,
      failed: () => (this.#orphans = true),
    });
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /** A webhook was just added here: look now rather than at the end of the idle second. */
  wake(): void {
    this.#woken = true;
    this.#nudge?.();
    this.#kick?.();
  }

  /** Stops taking deliveries and waits for those in flight. */
  async stop(): Promise<void> {
    this.#stop.abort();
    this.#kick?.();
    await this.#loop;
    await Promise.allSettled([...this.#inFlight.keys()]);
    await this.#sender.close();
  }

  async #run(): Promise<void> {
    const { db, clock } = this.deps;
    while (!this.#stop.signal.aborted) {
      let due: number | undefined;
      let idle = false;
      this.#woken = false;
      try {
        // Without webhooks nothing waits on the feed (no head reads every 100 ms on PGlite).
        idle = !(await hasWebhooks(db));
      } catch {
        this.#orphans = true;
        idle = true;
      }
      if (idle) {
        if (!this.#woken) await this.#sleep(IDLE_MS, true);
        continue;
      }
      const gap = this.#turnAt + MIN_TURN_MS - performance.now();
      if (gap > 0) await this.#sleep(gap);
      this.#turnAt = performance.now();
      this.#ended = false;
      try {
        const head = await this.deps.changes.head();
        this.#heard = head;
        // Seen only once every webhook is brought up to it; else the next turn tries again
        // (at once after a full batch; a webhook another instance holds, within a second).
        if (head > this.#seen) {
          const outcome = await fanOut(db, clock(), FAN_OUT_BATCH);
          if (outcome === 'done') this.#seen = head;
          if (outcome === 'more') continue;
        }
        if (clock() - this.#reclaimed >= RECLAIM_MS) await this.#reclaim();
        if (this.#orphans) await this.#releaseOrphans();
        const room = IN_FLIGHT - this.#inFlight.size;
        if (room > 0) {
          // One instant for both: a retry falling due between them is claimed or waited for.
          const now = clock();
          const claimed = await claimDue(db, now, LEASE_MS, room, this.deps.owner.id);
          for (const delivery of claimed) this.#track(delivery);
          if (claimed.length === room) continue;
          due = await nextDue(db, now);
        }
        // With no room, the next delivery to end wakes the loop (else within IDLE_MS).
        this.#failing = false;
      } catch (err) {
        this.#orphans = true;
        if (!this.#failing) this.deps.logger.warn({ err }, 'webhooks: the index does not answer');
        this.#failing = true;
      }
      const wait = due === undefined ? IDLE_MS : Math.min(IDLE_MS, Math.max(0, due - clock()));
      await this.#wait(wait);
    }
  }

  /** Frees the leases of instances that are gone (killed, or cut off from the index). */
  async #reclaim(): Promise<void> {
    const { db, clock, owner } = this.deps;
    const now = clock();
    this.#reclaimed = now;
    for (const other of await leaseOwners(db, now, owner.id)) {
      if (!(await owner.isGone(other))) continue;
      const freed = await releaseLeases(db, other, now + LEASE_MS - RECLAIM_AFTER_MS);
      if (freed > 0) {
        this.deps.logger.warn(
          { instance: other, deliveries: freed },
          'webhooks: deliveries leased by an instance that is gone are retaken',
        );
      }
    }
  }

  /** Frees this instance's leases on deliveries it is not sending (see `#orphans`). */
  async #releaseOrphans(): Promise<void> {
    const sending = [...this.#inFlight.values()];
    this.#orphans = false;
    try {
      const freed = await releaseOwnLeases(this.deps.db, this.deps.owner.id, sending);
      if (freed > 0) {
        this.deps.logger.warn(
          { deliveries: freed },
          'webhooks: deliveries leased here but not sent are retaken',
        );
      }
    } catch (err) {
      this.#orphans = true;
      throw err;
    }
  }

  #track(claimed: ClaimedDelivery): void {
    const delivery = this.#deliver(claimed);
    this.#inFlight.set(delivery, claimed);
    void delivery.finally(() => {
      this.#inFlight.delete(delivery);
      this.#ended = true;
      this.#kick?.();
    });
  }

  /** Waits `ms`, or until stopped, or (`wakeable`) until `wake()`. */
  async #sleep(ms: number, wakeable = false): Promise<void> {
    const stop = this.#stop.signal;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        stop.removeEventListener('abort', done);
        if (this.#nudge === done) this.#nudge = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      stop.addEventListener('abort', done, { once: true });
      if (wakeable) this.#nudge = done;
    });
  }

  async #wait(ms: number): Promise<void> {
    if (ms <= 0 || this.#ended || this.#stop.signal.aborted) return;
    const done = new AbortController();
    const onStop = () => done.abort();
    this.#stop.signal.addEventListener('abort', onStop, { once: true });
    await Promise.race([
      this.deps.changes.wait(this.#heard, ms, done.signal),
      new Promise<void>((resolve) => (this.#kick = resolve)),
    ]);
    this.#kick = undefined;
    done.abort();
    this.#stop.signal.removeEventListener('abort', onStop);
  }

  async #deliver(delivery: ClaimedDelivery): Promise<void> {
    const { clock, metrics } = this.deps;
    const started = clock();
    const eventId = Number(delivery.pos);
    let status: number | null = null;
    let error: string | null = null;
    try {
      if (!delivery.event) {
        error = 'event no longer kept (changes_retention_days)';
      } else {
        status = await this.#sender.post(delivery.url, delivery.secret, delivery.event);
        if (status < 200 || status > 299) error = `answered ${status}`;
      }
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    const attempt: Attempt = {
      webhook_id: delivery.webhook_id,
      event_id: eventId,
      status,
      error,
      at: started,
      duration_ms: Math.max(0, clock() - started),
    };
    let nextAt: number | null = null;
    if (error === null) {
      metrics.delivered();
    } else {
      metrics.failed();
      const retryAt = clock() + backoffMs(this.deps.firstRetryMs, delivery.attempts + 1);
      if (!delivery.event || retryAt - Number(delivery.at) > this.deps.retryHours * 3_600_000) {
        attempt.error = `${error}; given up`;
        metrics.givenUp();
        this.deps.logger.warn(
          { webhook: delivery.webhook_id, event: eventId, error },
          'webhook delivery given up',
        );
      } else {
        nextAt = retryAt;
      }
    }
    await this.#outcomes.record({ delivery, attempt, nextAt });
  }
}
