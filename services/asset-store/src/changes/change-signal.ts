import type { DatabaseHandle } from '@svc/database';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import { eventHead } from './change.repository.js';

/** The channel the numbering trigger notifies on each commit with events (the migration's). */
const CHANNEL = 'asset_store_events';
/** How often the head is read while someone waits: a safety net beside LISTEN, or the only way. */
const POLL_WITH_LISTEN_MS = 1_000;
const POLL_ALONE_MS = 100;
const RECONNECT_MS = 1_000;

/**
 * Tells waiters in this process that events were committed, by any instance: the commit's
 * `NOTIFY` (PostgreSQL, on a connection of its own), and a read of the head while anyone
 * waits (every 100 ms on the embedded database, every second beside LISTEN in case a
 * notification was lost with its connection). It only wakes readers; the events are
 * always read from the table, so a lost signal delays an event, never loses it.
 */
export class ChangeSignal {
  #last = 0;
  readonly #waiters = new Set<() => void>();
  #client: pg.Client | undefined;
  #poll: NodeJS.Timeout | undefined;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;
  #lossLogged = false;

  private constructor(
    private readonly index: DatabaseHandle<Database>,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  /** Starts listening in the background. */
  static start(index: DatabaseHandle<Database>, logger: Pick<Logger, 'warn'>): ChangeSignal {
    const signal = new ChangeSignal(index, logger);
    if (index.target.kind === 'postgres') void signal.#connect(index.target.url);
    return signal;
  }

  /** The highest position this process heard of. */
  get last(): number {
    return this.#last;
  }

  /** Told by a reader that saw position `pos`: waiters beyond it wake. */
  saw(pos: number): void {
    if (pos <= this.#last) return;
    this.#last = pos;
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of waiters) wake();
  }

  /** Resolves once a position beyond `pos` is heard of, after `ms`, or on `abort`. */
  wait(pos: number, ms: number, abort?: AbortSignal): Promise<void> {
    if (this.#last > pos || this.#closed || abort?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        abort?.removeEventListener('abort', done);
        this.#waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      abort?.addEventListener('abort', done, { once: true });
      this.#waiters.add(done);
      this.#startPolling();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#poll);
    clearTimeout(this.#retry);
    for (const wake of [...this.#waiters]) wake();
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  #startPolling(): void {
    if (this.#poll || this.#closed) return;
    const every = this.#client ? POLL_WITH_LISTEN_MS : POLL_ALONE_MS;
    this.#poll = setInterval(() => {
      if (this.#waiters.size === 0) {
        clearInterval(this.#poll);
        this.#poll = undefined;
        return;
      }
      eventHead(this.index.db).then(
        (head) => this.saw(head.last),
        () => undefined,
      );
    }, every);
    this.#poll.unref();
  }

  async #connect(url: string): Promise<void> {
    if (this.#closed) return;
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => undefined);
    client.on('notification', (msg) => {
      if (msg.channel === CHANNEL && msg.payload) this.saw(Number(msg.payload));
    });
    client.on('end', () => {
      if (this.#client !== client) return;
      this.#client = undefined;
      this.#reconnect(url);
    });
    try {
      await client.connect();
      await client.query(`listen ${CHANNEL}`);
    } catch (err) {
      await client.end().catch(() => undefined);
      if (!this.#lossLogged) {
        this.#lossLogged = true;
        this.logger.warn({ err }, 'change feed: cannot listen for commits; reading the head');
      }
      this.#reconnect(url);
      return;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#lossLogged = false;
    this.#client = client;
    // Whatever was committed while not listening wakes the waiters now.
    eventHead(this.index.db).then(
      (head) => this.saw(head.last),
      () => undefined,
    );
  }

  #reconnect(url: string): void {
    if (this.#closed) return;
    clearTimeout(this.#retry);
    this.#retry = setTimeout(() => void this.#connect(url), RECONNECT_MS);
    this.#retry.unref();
  }
}
