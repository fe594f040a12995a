import type { Logger } from 'pino';
import type { ListenClient } from '../pubsub/postgres.pubsub.js';
import { ROTATION_CHANNEL } from './sigchain.repository.js';

const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5_000;

/**
 * Hears every instance's rotations (`NOTIFY handle_relay_rotations '<handle> <old key>'`,
 * sent at the rotation's commit) and hands each to `rotated`, so the streams the old key
 * opened end on every instance. Reconnects by itself; returns its close.
 */
export async function listenForRotations(deps: {
  connect: () => Promise<ListenClient>;
  rotated: (handle: string, oldKey: string) => void;
  logger: Logger;
}): Promise<() => Promise<void>> {
  let client: ListenClient | undefined;
  let closed = false;
  let retryMs = RECONNECT_MIN_MS;
  let timer: NodeJS.Timeout | undefined;

  const onNotification = (n: { channel: string; payload?: string }): void => {
    if (n.channel !== ROTATION_CHANNEL || !n.payload) return;
    const space = n.payload.indexOf(' ');
    if (space > 0) deps.rotated(n.payload.slice(0, space), n.payload.slice(space + 1));
  };
  const detach = (c: ListenClient): void => {
    c.removeAllListeners();
    c.on('error', () => undefined);
  };
  const retry = (): void => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      connect().catch((err: unknown) => {
        deps.logger.warn({ err, retryMs }, 'rotation LISTEN connection failed; retrying');
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
    if (!closed) deps.logger.warn({ err }, 'rotation LISTEN connection lost; reconnecting');
    retry();
  };
  async function connect(): Promise<void> {
    const c = await deps.connect();
    c.on('notification', onNotification);
    c.on('error', (err) => lost(c, err));
    c.on('end', () => lost(c));
    try {
      await c.query(`LISTEN ${ROTATION_CHANNEL}`);
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
  return () => {
    closed = true;
    clearTimeout(timer);
    const c = client;
    client = undefined;
    if (c) {
      detach(c);
      c.release(true);
    }
    return Promise.resolve();
  };
}
