import { Counter, Gauge, type Registry } from 'prom-client';

/** What the webhook gauges read at each scrape (the queue in the index). */
export type BacklogSource = () => Promise<{ retrying: number; oldestAt: number | null }>;

/**
 * The webhooks' series: deliveries and failed attempts counted by this instance, and from
 * the index at scrape time the retry backlog and the oldest event still owed (all
 * instances). While the index does not answer the gauges keep their last values.
 */
export class WebhookMetrics {
  readonly #delivered: Counter;
  readonly #failed: Counter;
  readonly #givenUp: Counter;

  constructor(registry: Registry, backlog: BacklogSource, clock: () => number) {
    const registers = [registry];
    this.#delivered = new Counter({
      name: 'asset_store_webhook_deliveries_total',
      help: 'Webhook deliveries answered 2xx',
      registers,
    });
    this.#failed = new Counter({
      name: 'asset_store_webhook_failures_total',
      help: 'Webhook attempts that failed (non-2xx, timeout, refused); each is retried or given up',
      registers,
    });
    this.#givenUp = new Counter({
      name: 'asset_store_webhook_deliveries_given_up_total',
      help: 'Webhook deliveries given up after webhook_retry_hours',
      registers,
    });
    let pending: ReturnType<BacklogSource> | undefined;
    const read = () => {
      pending ??= backlog().finally(() => {
        pending = undefined;
      });
      return pending;
    };
    new Gauge({
      name: 'asset_store_webhook_retry_backlog',
      help: 'Webhook deliveries waiting for a retry (failed at least once)',
      registers,
      async collect() {
        const b = await read().catch(() => undefined);
        if (b) this.set(b.retrying);
      },
    });
    new Gauge({
      name: 'asset_store_webhook_oldest_undelivered_seconds',
      help: 'Age of the oldest event not yet delivered to a webhook that should get it; 0 when none',
      registers,
      async collect() {
        const b = await read().catch(() => undefined);
        if (b) this.set(b.oldestAt === null ? 0 : Math.max(0, (clock() - b.oldestAt) / 1000));
      },
    });
  }

  delivered(): void {
    this.#delivered.inc();
  }

  failed(): void {
    this.#failed.inc();
  }

  givenUp(): void {
    this.#givenUp.inc();
  }
}
