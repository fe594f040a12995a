import { randomUUID } from 'node:crypto';
import { connect, type Msg, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import type { RelayedMessage } from '../messages/message.model.js';
import { ListenerRegistry } from './listener-registry.js';
import type { PubSub } from './pubsub.port.js';
import { SeqCursor } from './seq-cursor.js';

/**
 * A batch carries its rows when their text stays under this; larger ones announce only their
 * last seq and are read from the store. NATS refuses payloads above its `max_payload`
 * (1 MiB by default).
 */
const MAX_CARRIED_CHARS = 512 * 1024;

/** How often the store is read while NATS is unreachable, and as a safety net while it is up. */
const POLL_DOWN_MS = 250;
const POLL_UP_MS = 2_000;
const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5_000;

/** What the adapter needs from outside. */
export interface NatsPubSubDeps {
  /** `nats://host:port`, or several separated by commas (one cluster). */
  servers: string;
  /** The subject this deployment's instances announce batches on (one per database). */
  subject: string;
  /** Stored messages of every recipient after `afterSeq`, ascending, at most `limit`. */
  readAfter: (afterSeq: number, limit: number) => Promise<RelayedMessage[]>;
  /** The highest stored seq (0 when none). */
  latestSeq: () => Promise<number>;
  logger: Logger;
  /** Tests shorten or stretch the polls. */
  pollDownMs?: number;
  pollUpMs?: number;
}

/**
 * What a batch announcement holds: `[sender, last seq, rows]`, rows being
 * `[recipient, created_at, envelope text]` in seq order (consecutive up to the last seq), or
 * `null` when they were too large to carry.
 */
type Announcement = [string, number, [string, string, string][] | null];

/** The announcement of a batch; the rows are left out when too large. */
export function announcement(sender: string, messages: readonly RelayedMessage[]): string {
  let chars = 0;
  for (const m of messages) chars += m.envelopeJson.length + m.recipient.length + 32;
  const rows =
    chars <= MAX_CARRIED_CHARS
      ? messages.map((m) => [m.recipient, m.createdAt, m.envelopeJson])
      : null;
  return JSON.stringify([sender, messages.at(-1)!.seq, rows]);
}

/** The rows an announcement carries, numbered up to its last seq; undefined when malformed. */
function parse(text: string): { sender: string; lastSeq: number; rows?: RelayedMessage[] } {
  const [sender, lastSeq, rows] = JSON.parse(text) as Announcement;
  if (typeof sender !== 'string' || !Number.isSafeInteger(lastSeq)) throw new Error('malformed');
  if (!Array.isArray(rows) || rows.length === 0) return { sender, lastSeq };
  const first = lastSeq - rows.length + 1;
  return {
    sender,
    lastSeq,
    rows: rows.map(([recipient, createdAt, envelopeJson], i) => {
      if (typeof envelopeJson !== 'string') throw new Error('malformed');
      return { seq: first + i, recipient, createdAt, envelopeJson };
    }),
  };
}

/**
 * The NATS adapter: each batch is stored in PostgreSQL first (the writer's statement, as
 * always), then announced on the deployment's subject with its rows; every instance's cursor
 * (SeqCursor) hands them to its streams or reads the store where it missed something. Core
 * NATS, not JetStream: the store already keeps every message, and the cursor reads any gap
 * from it, so a second durable copy would cost a file write per batch and add nothing. What
 * NATS cannot tell (an announcement lost in an outage, or never sent because its writer died
 * after the commit) the store tells: it is read every POLL_DOWN_MS while NATS is
 * unreachable, at every reconnect, and every POLL_UP_MS as a safety net. Sends never wait for
 * NATS.
 */
export async function createNatsPubSub(deps: NatsPubSubDeps): Promise<PubSub> {
  const listeners = new ListenerRegistry();
  const sender = randomUUID();
  const cursor = new SeqCursor({
    listeners,
    readAfter: deps.readAfter,
    logger: deps.logger,
    lastSeen: await deps.latestSeq(),
  });
  const pollDownMs = deps.pollDownMs ?? POLL_DOWN_MS;
  const upEvery = Math.max(1, Math.round((deps.pollUpMs ?? POLL_UP_MS) / pollDownMs));
  let nc: NatsConnection | undefined;
  let up = false;
  let closed = false;
  let ticks = 0;
  let retryMs = RECONNECT_MIN_MS;
  let retryTimer: NodeJS.Timeout | undefined;

  const onMessage = (err: Error | null, msg: Msg): void => {
    if (err) {
      deps.logger.warn({ err }, 'NATS subscription error; reading the store');
      cursor.want(Infinity);
      return;
    }
    let a: ReturnType<typeof parse>;
    try {
      a = parse(msg.string());
    } catch {
      deps.logger.warn({ subject: msg.subject }, 'ignored a malformed announcement');
      return;
    }
    // This instance's own batches reach its listeners from the writer.
    if (a.sender === sender) return;
    if (a.rows) cursor.offer(a.rows);
    else cursor.want(a.lastSeq);
  };

  /** Follows the connection's state: polls while it is down, reads the store when back. */
  const watch = async (c: NatsConnection): Promise<void> => {
    for await (const s of c.status()) {
      if (s.type === 'disconnect') {
        up = false;
        if (!closed) deps.logger.warn({ server: s.server }, 'NATS connection lost; reconnecting');
      } else if (s.type === 'reconnect') {
        up = true;
        deps.logger.info({ server: s.server }, 'NATS connection restored');
        cursor.want(Infinity);
      } else if (s.type === 'slowConsumer') {
        // The client dropped announcements it could not keep up with.
        cursor.want(Infinity);
      }
    }
  };

  const open = async (): Promise<void> => {
    const c = await connect({
      servers: deps.servers.split(',').map((s) => s.trim()),
      name: 'handle-relay',
      // After the first connection the client reconnects by itself, for ever.
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      // A silently dead connection is noticed within about 10 s (the polls cover meanwhile).
      pingInterval: 5_000,
      maxPingOut: 2,
      // An unreachable server must not hold start-up long: the store is read meanwhile.
      timeout: 2_000,
    });
    if (closed) {
      await c.close();
      return;
    }
    c.subscribe(deps.subject, { callback: onMessage });
    nc = c;
    up = true;
    retryMs = RECONNECT_MIN_MS;
    void watch(c).catch(() => undefined);
    // Anything committed before the subscription took hold.
    cursor.want(Infinity);
  };

  /** The first connection, retried here: the client reconnects by itself only once it had one. */
  const firstConnection = (): void => {
    open().catch((err: unknown) => {
      if (closed) return;
      deps.logger.warn({ err, retryMs }, 'NATS unreachable; reading the store until it answers');
      retryTimer = setTimeout(firstConnection, retryMs);
      retryMs = Math.min(retryMs * 2, RECONNECT_MAX_MS);
    });
  };

  const poll = setInterval(() => {
    ticks += 1;
    if (!up || ticks % upEvery === 0) cursor.want(Infinity);
  }, pollDownMs);
  poll.unref();

  try {
    await open();
  } catch (err) {
    // Start anyway: sends work without NATS, and streams read the store meanwhile.
    deps.logger.warn({ err }, 'NATS unreachable at start; reading the store until it answers');
    retryTimer = setTimeout(firstConnection, retryMs);
  }

  return {
    // Nothing rides on the batch statement: the announcement follows the commit.
    doorbell: undefined,
    deliver: (messages) => {
      cursor.offer(messages);
      if (!nc || messages.length === 0) return;
      try {
        nc.publish(deps.subject, announcement(sender, messages));
      } catch (err) {
        // Closed or draining: the others read it from the store at their next poll.
        deps.logger.debug({ err }, 'could not announce a batch');
      }
    },
    recheck: () => cursor.want(Infinity),
    subscribe: (handle, listener) => listeners.add(handle, listener),
    close: async () => {
      closed = true;
      const reading = cursor.close();
      clearInterval(poll);
      clearTimeout(retryTimer);
      const c = nc;
      nc = undefined;
      up = false;
      if (c) await c.close().catch(() => undefined);
      await reading;
    },
  };
}
