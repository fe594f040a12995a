import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import type { MessageNotifier } from '../messages/message.service.js';
import type { PushSender } from './push-sender.port.js';
import type { RelayMetrics } from '../metrics/relay-metrics.js';
import { deleteSubscriptionByEndpoint, listSubscriptions } from './push.repository.js';

/** Deliveries in flight at once, across all recipients. */
export const PUSH_CONCURRENCY = 8;
/** Jobs allowed to wait; beyond that new notifications are dropped (and logged). */
export const PUSH_MAX_PENDING = 10_000;
/** How long shutdown keeps delivering what is already queued before dropping the rest. */
export const PUSH_CLOSE_GRACE_MS = 5_000;

/** Contract payload: metadata only, never the envelope. */
export function pushPayload(handle: string, seq: number): string {
  return JSON.stringify({ type: 'message', to: handle, seq });
}

/** What the notifier needs. */
export interface PushNotifierDeps {
  db: Kysely<Database>;
  sender: PushSender;
  logger: Logger;
  concurrency?: number;
  closeGraceMs?: number;
  /** Deliveries by outcome, for `/metrics`. */
  metrics?: Pick<RelayMetrics, 'pushDelivery'>;
}

/**
 * Web Push fan-out after each stored message: never awaited by the send, at most
 * `concurrency` jobs at a time, a bounded backlog. A subscription whose push service
 * answers 404 or 410 is deleted; other failures are logged.
 */
export class PushNotifier implements MessageNotifier {
  readonly #queue: (() => Promise<void>)[] = [];
  readonly #concurrency: number;
  #active = 0;
  #closed = false;
  /** Set once the shutdown grace is over: deliveries queued from then on are dropped too. */
  #dropping = false;
  #idleWaiters: (() => void)[] = [];

  constructor(private readonly deps: PushNotifierDeps) {
    this.#concurrency = deps.concurrency ?? PUSH_CONCURRENCY;
  }

  /** Queues the fan-out of one stored message to the recipient's subscriptions. */
  notify(handle: string, seq: number): void {
    if (this.#closed) return;
    this.#enqueue(async () => {
      const subscriptions = await listSubscriptions(this.deps.db, handle);
      const payload = pushPayload(handle, seq);
      for (const sub of subscriptions) this.#enqueue(() => this.#deliver(sub, payload));
    });
  }

  /** Resolves once no job is queued or running (tests, shutdown). */
  idle(): Promise<void> {
    if (this.#active === 0 && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * Stops taking notifications and keeps delivering the queued ones (fan-outs already
   * started included) for up to the grace period, so a restart does not silently swallow
   * the pushes of messages stored just before it; what is still queued then is dropped
   * and counted in the log, and deliveries still running are cut off, since each could
   * otherwise hold the shutdown for the sender's timeouts (20 s against a push service
   * that stops answering).
   */
  async close(): Promise<void> {
    this.#closed = true;
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<'grace over'>((resolve) => {
      timer = setTimeout(
        () => resolve('grace over'),
        this.deps.closeGraceMs ?? PUSH_CLOSE_GRACE_MS,
      );
    });
    const ended = await Promise.race([this.idle(), graceOver]);
    clearTimeout(timer);
    if (ended === 'grace over') {
      this.#dropping = true;
      const dropped = this.#queue.length;
      this.#queue.length = 0;
      if (dropped > 0) {
        this.deps.logger.warn({ dropped }, 'shutdown: queued push deliveries dropped');
      }
    }
    await this.deps.sender.close();
    // Deliveries the close cut off still settle (and log) before the notifier is done.
    await this.idle();
  }

  async #deliver(
    sub: { endpoint: string; p256dh: string; auth: string },
    payload: string,
  ): Promise<void> {
    const outcome = await this.deps.sender.send(sub, payload);
    const metrics = this.deps.metrics;
    if ('error' in outcome) {
      metrics?.pushDelivery('failed');
      this.deps.logger.warn({ err: outcome.error, endpoint: sub.endpoint }, 'push delivery failed');
      return;
    }
    if (outcome.status === 404 || outcome.status === 410) {
      metrics?.pushDelivery('gone');
      await deleteSubscriptionByEndpoint(this.deps.db, sub.endpoint);
      this.deps.logger.info({ endpoint: sub.endpoint }, 'push subscription gone; deleted');
    } else if (outcome.status < 200 || outcome.status >= 300) {
      metrics?.pushDelivery('refused');
      this.deps.logger.warn({ status: outcome.status, endpoint: sub.endpoint }, 'push refused');
    } else {
      metrics?.pushDelivery('delivered');
    }
  }

  #enqueue(job: () => Promise<void>): void {
    if (this.#dropping) {
      // A fan-out still reading its recipient's subscriptions when the grace ended.
      this.deps.logger.warn({ dropped: 1 }, 'shutdown: queued push deliveries dropped');
      return;
    }
    if (this.#queue.length >= PUSH_MAX_PENDING) {
      this.deps.logger.warn('push backlog full; notification dropped');
      return;
    }
    this.#queue.push(job);
    this.#next();
  }

  #next(): void {
    while (this.#active < this.#concurrency && this.#queue.length > 0) {
      const job = this.#queue.shift()!;
      this.#active += 1;
      job()
        .catch((err: unknown) => this.deps.logger.error({ err }, 'push job failed'))
        .finally(() => {
          this.#active -= 1;
          this.#next();
          if (this.#active === 0 && this.#queue.length === 0) {
            for (const resolve of this.#idleWaiters.splice(0)) resolve();
          }
        });
    }
  }
}
