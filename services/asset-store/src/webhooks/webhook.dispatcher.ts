import type { Kysely } from 'kysely';
import net from 'node:net';
import type { Logger } from 'pino';
import { Agent, request } from 'undici';
import { toChangeEvent, type ChangeFeed } from '../changes/change.service.js';
import type { Database } from '../db/database.js';
import type { WebhookMetrics } from './webhook-metrics.js';
import { webhookSignature } from './webhook-signature.js';
import { guardedLookup, hostOf, isPrivateAddress } from './webhook-target.js';
import {
  claimDue,
  fanOut,
  hasWebhooks,
  nextDue,
  retryDelivery,
  settleDelivery,
  type Attempt,
  type ClaimedDelivery,
} from './webhook.repository.js';

/** A receiver has this long to answer 2xx (contract). */
const TIMEOUT_MS = 10_000;
/** A claimed delivery is this instance's for this long (well past the timeout). */
const LEASE_MS = 60_000;
/** Deliveries in flight per instance at most. */
const IN_FLIGHT = 32;
/** Events moved into each webhook's queue per transaction. */
const FAN_OUT_BATCH = 1000;
/** The loop looks again at least this often (a retry falling due, a lost wake-up). */
const IDLE_MS = 1_000;
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
}

/**
 * Delivers the feed to the webhooks, at least once, one asset's events to one webhook in
 * order, from every instance at once: each moves new events into the webhooks' queues
 * (a webhook's row locked meanwhile) and takes due deliveries with a lease, the earliest
 * owed per webhook and asset only. Woken by the feed's signal, by a delivery ending, and
 * at least every second. A crash loses nothing: the queue is in the index, and a lease
 * left by a dead instance runs out.
 */
export class WebhookDispatcher {
  readonly #stop = new AbortController();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #agent: Agent;
  #kick: (() => void) | undefined;
  #loop: Promise<void> | undefined;
  /** The head every webhook was brought up to. */
  #seen = 0;
  /** The head last read: the wait is for events beyond it. */
  #heard = 0;
  #failing = false;

  constructor(private readonly deps: DispatcherDeps) {
    this.#agent = new Agent({
      connect: { lookup: guardedLookup(deps.allowPrivate), timeout: TIMEOUT_MS },
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /** Stops taking deliveries and waits for those in flight. */
  async stop(): Promise<void> {
    this.#stop.abort();
    this.#kick?.();
    await this.#loop;
    await Promise.allSettled([...this.#inFlight]);
    await this.#agent.close().catch(() => undefined);
  }

  async #run(): Promise<void> {
    const { db, clock } = this.deps;
    while (!this.#stop.signal.aborted) {
      let due: number | undefined;
      let idle = false;
      try {
        // Without webhooks nothing waits on the feed (no head reads every 100 ms on PGlite).
        idle = !(await hasWebhooks(db));
      } catch {
        idle = true;
      }
      if (idle) {
        await this.#sleep(IDLE_MS);
        continue;
      }
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
        const room = IN_FLIGHT - this.#inFlight.size;
        if (room > 0) {
          const claimed = await claimDue(db, clock(), LEASE_MS, room);
          for (const delivery of claimed) this.#track(this.#deliver(delivery));
          if (claimed.length === room) continue;
        }
        due = await nextDue(db);
        this.#failing = false;
      } catch (err) {
        if (!this.#failing) this.deps.logger.warn({ err }, 'webhooks: the index does not answer');
        this.#failing = true;
      }
      const wait = due === undefined ? IDLE_MS : Math.min(IDLE_MS, Math.max(0, due - clock()));
      await this.#wait(wait);
    }
  }

  #track(delivery: Promise<void>): void {
    this.#inFlight.add(delivery);
    void delivery.finally(() => {
      this.#inFlight.delete(delivery);
      this.#kick?.();
    });
  }

  async #sleep(ms: number): Promise<void> {
    const stop = this.#stop.signal;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        stop.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      stop.addEventListener('abort', done, { once: true });
    });
  }

  async #wait(ms: number): Promise<void> {
    if (ms <= 0 || this.#stop.signal.aborted) return;
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
        status = await this.#post(
          delivery.url,
          delivery.secret,
          delivery.event.pos!,
          delivery.event,
        );
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
    try {
      if (error === null) {
        await settleDelivery(this.deps.db, delivery, attempt);
        metrics.delivered();
        return;
      }
      metrics.failed();
      const nextAt = clock() + backoffMs(this.deps.firstRetryMs, delivery.attempts + 1);
      if (!delivery.event || nextAt - Number(delivery.at) > this.deps.retryHours * 3_600_000) {
        await settleDelivery(this.deps.db, delivery, { ...attempt, error: `${error}; given up` });
        metrics.givenUp();
        this.deps.logger.warn(
          { webhook: delivery.webhook_id, event: eventId, error },
          'webhook delivery given up',
        );
        return;
      }
      await retryDelivery(this.deps.db, delivery, nextAt, attempt);
    } catch (err) {
      // The index did not take the outcome: the lease runs out and the delivery is tried again.
      this.deps.logger.warn({ err }, 'webhooks: could not record a delivery outcome');
    }
  }

  async #post(
    url: string,
    secret: string,
    pos: number,
    row: NonNullable<ClaimedDelivery['event']>,
  ): Promise<number> {
    const target = new URL(url);
    const host = hostOf(target);
    // A literal address is never looked up: checked here instead.
    if (!this.deps.allowPrivate && net.isIP(host) && isPrivateAddress(host)) {
      throw new Error(`refused: ${host} is a private address`);
    }
    const body = JSON.stringify(toChangeEvent(row));
    const id = String(pos);
    const timestamp = Math.floor(this.deps.clock() / 1000);
    const res = await request(target, {
      method: 'POST',
      dispatcher: this.#agent,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'asset-store-webhooks',
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': webhookSignature(secret, id, timestamp, body),
      },
      body,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    // Only the status counts; the body is read to its end so the connection is reused.
    await res.body.dump().catch(() => undefined);
    return res.statusCode;
  }
}
