import type { Logger } from 'pino';

const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5_000;

/** The part of a pg client a LISTEN uses (a client checked out of the pool). */
export interface ListenClient {
  query(text: string): Promise<unknown>;
  on(event: 'notification', fn: (n: { channel: string; payload?: string }) => void): unknown;
  on(event: 'error', fn: (err: Error) => void): unknown;
  on(event: 'end', fn: () => void): unknown;
  removeAllListeners(): unknown;
  release(err?: Error | boolean): void;
}

/** Stops listening to a client; a late socket error must not crash the process. */
function detach(c: ListenClient): void {
  c.removeAllListeners();
  c.on('error', () => undefined);
}

/**
 * One dedicated connection that LISTENs on `channel` and hands each notification's payload
 * to `heard`. It reconnects by itself, backing off to 5 s; once listening again it calls
 * `reconnected` to read what it may have missed while down (listening first, so nothing
 * committed after that read goes unheard; a failure there counts as a lost connection).
 * Resolves once listening; `close` UNLISTENs and gives the connection back.
 */
export async function listenWithReconnect(deps: {
  connect: () => Promise<ListenClient>;
  channel: string;
  heard: (payload: string) => void;
  reconnected: () => void | Promise<void>;
  logger: Logger;
}): Promise<{ close: () => Promise<void> }> {
  let client: ListenClient | undefined;
  let closed = false;
  let retryMs = RECONNECT_MIN_MS;
  let timer: NodeJS.Timeout | undefined;
  let listenedBefore = false;

  const retry = (): void => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      connect().catch((err: unknown) => {
        deps.logger.warn(
          { err, retryMs, channel: deps.channel },
          'LISTEN connection failed; retrying',
        );
        retryMs = Math.min(retryMs * 2, RECONNECT_MAX_MS);
        retry();
      });
    }, retryMs);
  };
  const lost = (c: ListenClient, err?: Error): void => {
    if (client !== c) return;
    client = undefined;
    detach(c);
    c.release(err ?? true);
    if (!closed)
      deps.logger.warn({ err, channel: deps.channel }, 'LISTEN connection lost; reconnecting');
    retry();
  };
  async function connect(): Promise<void> {
    const c = await deps.connect();
    c.on('notification', (n) => {
      if (n.channel === deps.channel) deps.heard(n.payload ?? '');
    });
    c.on('error', (err) => lost(c, err));
    c.on('end', () => lost(c));
    try {
      await c.query(`LISTEN ${deps.channel}`);
      if (listenedBefore) await deps.reconnected();
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
    listenedBefore = true;
    retryMs = RECONNECT_MIN_MS;
  }

  await connect();
  return {
    close: async () => {
      closed = true;
      clearTimeout(timer);
      const c = client;
      client = undefined;
      if (!c) return;
      detach(c);
      try {
        await c.query(`UNLISTEN ${deps.channel}`);
        c.release();
      } catch {
        c.release(true);
      }
    },
  };
}
