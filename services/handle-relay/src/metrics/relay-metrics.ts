import { createMetrics, type Metrics } from '@svc/envelope';
import { Counter, Gauge } from 'prom-client';

/** How one Web Push delivery ended. */
export type PushDeliveryOutcome = 'delivered' | 'gone' | 'refused' | 'failed';

/** How a message reached an open stream: as it was sent, or read back from the store. */
export type StreamDelivery = 'live' | 'replay';

/** What the scrape-time gauges read. */
export interface RelayMetricSources {
  openStreams(): number;
}

/**
 * The handle-relay's `/metrics`: the shared HTTP series (`@svc/envelope`) plus the domain
 * ones. One instance per runtime (`createRelayRuntime`), which the app reuses.
 */
export class RelayMetrics {
  /** The registry, the request-duration middleware and the `/metrics` handler. */
  readonly http: Metrics = createMetrics('handle_relay');
  #sources: RelayMetricSources | undefined;

  readonly #stored = this.#counter('messages_stored_total', 'Messages stored');
  readonly #delivered = this.#counter(
    'messages_delivered_total',
    'Messages written to open streams, live or replayed from the store',
    ['via'],
  );
  readonly #lagged = this.#counter(
    'stream_lagged_total',
    '`lagged` events sent to streams too slow for their live messages',
  );
  readonly #dropped = this.#counter(
    'stream_dropped_messages_total',
    'Live messages a slow stream dropped (the counts its `lagged` events carried)',
  );
  readonly #push = this.#counter(
    'push_deliveries_total',
    'Web Push deliveries by outcome: delivered (2xx), gone (404/410, subscription deleted), refused (other status), failed (no answer)',
    ['outcome'],
  );
  readonly #registrations = this.#counter('registrations_total', 'Handles registered');

  constructor() {
    const sources = () => this.#sources;
    new Gauge({
      name: 'handle_relay_open_streams',
      help: 'Inbox streams open on this instance',
      registers: [this.http.registry],
      collect() {
        this.set(sources()?.openStreams() ?? 0);
      },
    });
    // Every labelled series from the first scrape on, so a rate() sees its first increase.
    for (const via of ['live', 'replay']) this.#delivered.inc({ via }, 0);
    for (const outcome of ['delivered', 'gone', 'refused', 'failed']) {
      this.#push.inc({ outcome }, 0);
    }
  }

  /** Gives the scrape-time gauges their sources. */
  collectFrom(sources: RelayMetricSources): void {
    this.#sources = sources;
  }

  messagesStored(count: number): void {
    this.#stored.inc(count);
  }

  messageDelivered(via: StreamDelivery): void {
    this.#delivered.inc({ via });
  }

  lagged(dropped: number): void {
    this.#lagged.inc();
    this.#dropped.inc(dropped);
  }

  pushDelivery(outcome: PushDeliveryOutcome): void {
    this.#push.inc({ outcome });
  }

  registered(): void {
    this.#registrations.inc();
  }

  #counter<L extends string = never>(name: string, help: string, labelNames: L[] = []) {
    return new Counter<L>({
      name: `handle_relay_${name}`,
      help,
      labelNames,
      registers: [this.http.registry],
    });
  }
}
