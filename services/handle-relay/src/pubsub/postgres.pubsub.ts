import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { RelayedMessage } from '../messages/message.model.js';
import { ListenerRegistry } from './listener-registry.js';
import type { PubSub } from './pubsub.port.js';

/** The NOTIFY channel; databases are separate namespaces, so one fixed name is enough. */
export const NOTIFY_CHANNEL = 'handle_relay_messages';

/** NOTIFY payloads must stay under 8000 bytes; larger messages travel as a reference. */
const MAX_CARRIED_BYTES = 7_000;
const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5_000;

/** The part of a pg client the adapter uses (a client checked out of the pool). */
export interface ListenClient {
  query(text: string): Promise<unknown>;
  on(event: 'notification', fn: (n: { channel: string; payload?: string }) => void): unknown;
  on(event: 'error', fn: (err: Error) => void): unknown;
  on(event: 'end', fn: () => void): unknown;
  removeAllListeners(): unknown;
  release(err?: Error | boolean): void;
}

/** What the adapter needs from outside. */
export interface PostgresPubSubDeps {
  /** Checks out a dedicated connection (the pool's `connect`). */
  connect: () => Promise<ListenClient>;
  /** Reads one stored message, for notifications too large to carry it. */
  loadMessage: (seq: number) => Promise<RelayedMessage | undefined>;
  logger: Logger;
}

/** Stops listening to a client; a late socket error must not crash the process. */
function detach(c: ListenClient): void {
  c.removeAllListeners();
  c.on('error', () => undefined);
}

/** Wire form of a notification: the message itself when it fits, else its handle and seq. */
interface Notice {
  h: string;
  s: number;
  c?: string;
  e?: string;
}

/**
 * The LISTEN/NOTIFY adapter: every instance listens on one channel through a dedicated
 * connection and hands notifications to its local streams. The sender notifies in its own
 * short transaction right after the insert committed (a NOTIFY inside the insert's
 * transaction would hold the database-wide notify lock through the WAL flush and
 * serialise all sends), while still holding the recipient's lock, so each recipient's
 * notifications go out in seq order. A lost LISTEN connection is re-established with
 * backoff, after which every listener is told to resync from the store.
 */
export async function createPostgresPubSub(deps: PostgresPubSubDeps): Promise<PubSub> {
  const listeners = new ListenerRegistry();
  let client: ListenClient | undefined;
  let closed = false;
  let retryMs = RECONNECT_MIN_MS;
  let retryTimer: NodeJS.Timeout | undefined;
  // Notifications are handled one after another so a fetched (large) message never
  // overtakes a later carried one.
  let chain: Promise<void> = Promise.resolve();

  const handle = async (notice: Notice): Promise<void> => {
    if (!listeners.has(notice.h)) return;
    if (notice.e !== undefined && notice.c !== undefined) {
      listeners.deliver(notice.h, {
        seq: notice.s,
        recipient: notice.h,
        envelopeJson: notice.e,
        createdAt: notice.c,
      });
      return;
    }
    const message = await deps.loadMessage(notice.s);
    if (message) listeners.deliver(notice.h, message);
  };

  const onNotification = (n: { channel: string; payload?: string }): void => {
    if (n.channel !== NOTIFY_CHANNEL || !n.payload) return;
    let notice: Notice;
    try {
      notice = JSON.parse(n.payload) as Notice;
    } catch {
      deps.logger.warn({ payload: n.payload.slice(0, 200) }, 'ignored a malformed notification');
      return;
    }
    chain = chain.then(
      () => handle(notice),
      () => handle(notice),
    );
    chain.catch((err: unknown) => deps.logger.error({ err }, 'failed to relay a notification'));
  };

  const scheduleReconnect = (): void => {
    if (closed || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      connect().then(
        () => listeners.resyncAll(),
        (err: unknown) => {
          deps.logger.warn({ err, retryMs }, 'LISTEN connection failed; retrying');
          retryMs = Math.min(retryMs * 2, RECONNECT_MAX_MS);
          scheduleReconnect();
        },
      );
    }, retryMs);
  };

  const lost = (c: ListenClient, err?: Error): void => {
    if (client !== c) return;
    client = undefined;
    detach(c);
    c.release(err ?? true);
    if (!closed) deps.logger.warn({ err }, 'LISTEN connection lost; reconnecting');
    scheduleReconnect();
  };

  async function connect(): Promise<void> {
    const c = await deps.connect();
    c.on('notification', onNotification);
    c.on('error', (err) => lost(c, err));
    c.on('end', () => lost(c));
    try {
      await c.query(`LISTEN ${NOTIFY_CHANNEL}`);
    } catch (err) {
      detach(c);
      c.release(true);
      throw err;
    }
    if (closed) {
      detach(c);
      c.release(true);
      return;
    }
    client = c;
    retryMs = RECONNECT_MIN_MS;
  }

  await connect();

  return {
    publish: async (h, message, conn) => {
      const full: Notice = { h, s: message.seq, c: message.createdAt, e: message.envelopeJson };
      let payload = JSON.stringify(full);
      if (Buffer.byteLength(payload) > MAX_CARRIED_BYTES) {
        payload = JSON.stringify({ h, s: message.seq } satisfies Notice);
      }
      await sql`select pg_notify(${NOTIFY_CHANNEL}, ${payload})`.execute(conn);
    },
    subscribe: (h, listener) => listeners.add(h, listener),
    close: async () => {
      closed = true;
      clearTimeout(retryTimer);
      const c = client;
      client = undefined;
      if (!c) return;
      detach(c);
      try {
        await c.query(`UNLISTEN ${NOTIFY_CHANNEL}`);
        c.release();
      } catch {
        c.release(true);
      }
      await chain.catch(() => undefined);
    },
  };
}
