import {
  authLines,
  signedAuthValue,
  type InboxMessage,
  type KeyPair,
  type RelayClient,
} from '../../src/client/index.js';

/** What the sync tells the page about its connection. */
export type SyncStatus = 'connecting' | 'live' | 'offline';

/** How to keep an inbox in sync. */
export interface InboxSyncOptions {
  client: RelayClient;
  handle: string;
  keys: KeyPair;
  /** The last seq already held (0 for none): everything after it is fetched. */
  since: number;
  /** Called with messages in ascending seq, never one at or below a seq handed before. */
  onMessages: (messages: InboxMessage[]) => Promise<void>;
  onStatus: (status: SyncStatus, error?: unknown) => void;
}

const PAGE = 500;
const RETRY_MS = [500, 1_000, 2_000, 5_000, 10_000];

/**
 * Keeps the inbox: catches up through the signed inbox, then follows the live stream from
 * the last seq seen. A browser's EventSource would reconnect by itself with its first URL,
 * whose signed `auth` goes stale after 60 s (401, which ends it), so every drop closes it
 * and this reconnects with a fresh signature and `since`. A `lagged` event (the relay
 * dropped some messages for this stream) goes back through the inbox the same way.
 */
export class InboxSync {
  private since: number;
  private stopped = false;
  private current: EventSource | undefined;
  private wake: (() => void) | undefined;
  private delivered = Promise.resolve();

  constructor(private readonly options: InboxSyncOptions) {
    this.since = options.since;
  }

  /** Runs until `stop`. */
  start(): void {
    addEventListener('online', this.reconnectNow);
    void this.run();
  }

  stop(): void {
    this.stopped = true;
    removeEventListener('online', this.reconnectNow);
    this.current?.close();
    this.wake?.();
  }

  private readonly reconnectNow = () => this.wake?.();

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      try {
        this.options.onStatus('connecting');
        await this.catchUp();
        const heard = await this.follow();
        failures = heard ? 0 : failures + 1;
      } catch (err) {
        failures += 1;
        this.options.onStatus('offline', err);
      }
      if (this.stopped) return;
      await this.pause(RETRY_MS[Math.min(failures, RETRY_MS.length - 1)] ?? 10_000);
    }
  }

  /** Signed inbox pages from `since` until the relay says there is no more. */
  private async catchUp(): Promise<void> {
    for (;;) {
      const page = await this.options.client.inbox(this.options.handle, this.options.keys, {
        since: this.since,
        limit: PAGE,
      });
      await this.deliver(page.messages);
      if (!page.has_more) return;
    }
  }

  /** One stream; resolves when it ends, with whether it ever opened. */
  private follow(): Promise<boolean> {
    return new Promise((resolve) => {
      const { handle, keys } = this.options;
      const auth = signedAuthValue(keys.secretKey, authLines.stream(handle));
      const query = new URLSearchParams({ auth, since: String(this.since) });
      const source = new EventSource(`/v1/inbox/${encodeURIComponent(handle)}/stream?${query}`);
      this.current = source;
      let opened = false;
      const end = () => {
        source.close();
        resolve(opened);
      };
      source.onopen = () => {
        opened = true;
        this.options.onStatus('live');
      };
      source.addEventListener('message', (event: MessageEvent<string>) => {
        void this.deliver([JSON.parse(event.data) as InboxMessage]);
      });
      // Messages were dropped for this stream: end it, and the loop fetches them.
      source.addEventListener('lagged', end);
      source.onerror = end;
      if (this.stopped) end();
    });
  }

  /** Hands messages on in order, skipping any seq already handed (a replay's overlap). */
  private deliver(messages: InboxMessage[]): Promise<void> {
    const done = this.delivered.then(async () => {
      const fresh = messages.filter((m) => m.seq > this.since);
      if (fresh.length === 0) return;
      await this.options.onMessages(fresh);
      this.since = Math.max(this.since, ...fresh.map((m) => m.seq));
    });
    // A failed batch is not marked seen: the next catch-up fetches it again.
    this.delivered = done.catch((err: unknown) => this.options.onStatus('offline', err));
    return done;
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
