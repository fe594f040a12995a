import type { Response } from 'express';
import type { Logger } from 'pino';
import { relayErrors } from '../errors.js';
import type { RelayedMessage } from '../messages/message.model.js';
import type { PubSub } from '../pubsub/pubsub.port.js';
import { StreamSubscriber } from './stream-subscriber.js';
import type { RelayMetrics } from '../metrics/relay-metrics.js';

/** Response header: the seq the stream delivers messages after, for a client to resume from. */
const STREAM_START_HEADER = 'X-Stream-After';

/** Contract: keep-alive every 15 s, 64 buffered messages per subscriber. */
export const PING_INTERVAL_MS = 15_000;
export const STREAM_BUFFER_SIZE = 64;
/**
 * The keep-alive timer ticks this often and pings one group of streams per tick, so the
 * pings of streams opened at different moments spread over the whole interval and a live
 * message waits behind at most one small group's writes (bench/NOTES.md, "Stream
 * keep-alive").
 */
const PING_TICK_MS = 10;

/** What the hub needs from outside. */
export interface StreamHubDeps {
  pubsub: PubSub;
  /** Stored messages of a handle after a seq, ascending. */
  readAfter: (handle: string, afterSeq: number, limit: number) => Promise<RelayedMessage[]>;
  /** The highest stored seq of a handle (0 when none). */
  latestSeq: (handle: string) => Promise<number>;
  /**
   * The key each of these handles holds now (absent: no such handle). Read again as a
   * stream opens and after rotations may have gone unheard (`closeStale`); without it
   * only the rotations this hub is told of end streams.
   */
  keysOf?: (handles: readonly string[]) => Promise<Map<string, string>>;
  logger: Logger;
  now: () => number;
  /** Monotonic milliseconds that schedule the keep-alive (`performance.now` by default). */
  monotonicNow?: () => number;
  pingIntervalMs?: number;
  bufferSize?: number;
  /** Messages delivered and `lagged` events, for `/metrics`. */
  metrics?: Pick<RelayMetrics, 'messageDelivered' | 'lagged'>;
}

/** All open inbox streams of this instance: opening, keep-alive and shutdown. */
export class StreamHub {
  readonly #subscribers = new Set<StreamSubscriber>();
  /** The key each open stream was authorised by, `<handle> <key>` → its subscribers. */
  readonly #byKey = new Map<string, Set<StreamSubscriber>>();
  /** Streams still opening, by `<handle> <key>`: a rotation heard meanwhile revokes them. */
  readonly #opening = new Map<string, Set<{ revoked: boolean }>>();
  /**
   * The subscribers by ping group. A stream joins the group whose turn has just passed, so
   * it hears its first ping one interval after it opened, as the contract's "every 15 s"
   * reads; streams opened at different moments spread over the groups.
   */
  readonly #groups: Set<StreamSubscriber>[];
  readonly #timer: NodeJS.Timeout;
  readonly #clock: () => number;
  readonly #started: number;
  readonly #tickMs: number;
  /** Turns taken so far, counted from the hub's start. */
  #turns = 0;
  #closed = false;

  constructor(private readonly deps: StreamHubDeps) {
    const interval = deps.pingIntervalMs ?? PING_INTERVAL_MS;
    const groups = Math.max(1, Math.round(interval / PING_TICK_MS));
    this.#groups = Array.from({ length: groups }, () => new Set<StreamSubscriber>());
    this.#clock = deps.monotonicNow ?? (() => performance.now());
    this.#started = this.#clock();
    this.#tickMs = interval / groups;
    this.#timer = setInterval(() => this.#ping(), this.#tickMs);
    this.#timer.unref();
  }

  /** Number of open streams. */
  get size(): number {
    return this.#subscribers.size;
  }

  /**
   * Turns an authorised request into a live stream. The subscription is made before the
   * stored messages are read and before the headers go out, so a message stored after the
   * client saw the headers is always delivered, and one stored during the replay is
   * written once (by whichever path reaches it first).
   */
  async open(handle: string, since: number | undefined, res: Response, key = ''): Promise<void> {
    if (this.#closed) throw relayErrors.shuttingDown();
    const sub = new StreamSubscriber({
      handle,
      res,
      bufferSize: this.deps.bufferSize ?? STREAM_BUFFER_SIZE,
      readAfter: this.deps.readAfter,
      logger: this.deps.logger,
      metrics: this.deps.metrics,
    });
    const unsubscribe = this.deps.pubsub.subscribe(handle, sub);
    const keyed = `${handle} ${key}`;
    // Entered before the key is read again: a rotation committed after that read is heard
    // after this point (its NOTIFY follows its commit), and revokes the opening stream.
    const opening = { revoked: false };
    const pending = this.#opening.get(keyed) ?? new Set();
    this.#opening.set(keyed, pending.add(opening));
    let start: number;
    try {
      const [latest, keys] = await Promise.all([
        since === undefined ? this.deps.latestSeq(handle) : since,
        key && this.deps.keysOf ? this.deps.keysOf([handle]) : undefined,
      ]);
      start = latest;
      // The key was checked before this hub was told of a rotation already committed.
      if (keys && keys.get(handle) !== key) opening.revoked = true;
    } catch (err) {
      unsubscribe();
      throw err;
    } finally {
      pending.delete(opening);
      if (pending.size === 0 && this.#opening.get(keyed) === pending) this.#opening.delete(keyed);
    }
    if (this.#closed) {
      unsubscribe();
      throw relayErrors.shuttingDown();
    }
    if (opening.revoked) {
      unsubscribe();
      throw relayErrors.badSignature();
    }
    // The client left while the store was read: nothing to stream to.
    if (res.destroyed) {
      unsubscribe();
      return;
    }
    this.#subscribers.add(sub);
    const group = this.#groups[(this.#turns + this.#groups.length - 1) % this.#groups.length]!;
    group.add(sub);
    const sameKey = this.#byKey.get(keyed) ?? new Set<StreamSubscriber>();
    this.#byKey.set(keyed, sameKey.add(sub));
    res.on('close', () => {
      sub.stop();
      this.#subscribers.delete(sub);
      group.delete(sub);
      sameKey.delete(sub);
      if (sameKey.size === 0 && this.#byKey.get(keyed) === sameKey) this.#byKey.delete(keyed);
    });
    res.status(200);
    // Exactly the type the contract names: SSE is UTF-8 by definition, a charset adds nothing.
    res.setHeader('Content-Type', 'text/event-stream');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    // Where the stream begins: a client that has seen no message yet resumes from here after
    // a drop, so what was sent meanwhile is replayed rather than skipped.
    res.setHeader(STREAM_START_HEADER, String(start));
    res.socket?.setNoDelay(true);
    res.flushHeaders();
    sub.start(start, since !== undefined, unsubscribe);
  }

  /**
   * Ends the streams of `handle` that `key` authorised: after a rotation the old key's
   * streams stop hearing the handle's messages.
   */
  closeKey(handle: string, key: string): void {
    const keyed = `${handle} ${key}`;
    for (const opening of this.#opening.get(keyed) ?? []) opening.revoked = true;
    const subs = this.#byKey.get(keyed);
    if (!subs) return;
    this.#byKey.delete(keyed);
    for (const sub of [...subs]) sub.stop();
  }

  /**
   * Ends the streams (open or opening) whose key is no longer their handle's: rotations
   * whose notice this instance missed (its LISTEN connection was down). Returns how many.
   */
  async closeStale(batch = 1000): Promise<number> {
    const { keysOf } = this.deps;
    if (!keysOf) return 0;
    const open = new Map<string, Set<string>>();
    for (const keyed of [...this.#byKey.keys(), ...this.#opening.keys()]) {
      const space = keyed.indexOf(' ');
      const key = keyed.slice(space + 1);
      if (!key) continue;
      const handle = keyed.slice(0, space);
      open.set(handle, (open.get(handle) ?? new Set()).add(key));
    }
    const handles = [...open.keys()];
    let closed = 0;
    for (let i = 0; i < handles.length; i += batch) {
      const part = handles.slice(i, i + batch);
      const now = await keysOf(part);
      for (const handle of part) {
        for (const key of open.get(handle)!) {
          if (now.get(handle) === key) continue;
          closed += this.#byKey.get(`${handle} ${key}`)?.size ?? 0;
          this.closeKey(handle, key);
        }
      }
    }
    return closed;
  }

  /** Ends every stream and stops the keep-alive; later opens are refused. */
  close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    for (const sub of [...this.#subscribers]) sub.stop();
    this.#subscribers.clear();
    this.#byKey.clear();
    for (const group of this.#groups) group.clear();
    return Promise.resolve();
  }

  /**
   * Pings the groups whose turn the clock says has come, so each stream hears a ping once
   * per interval. Counting the timer's callbacks instead stretched every interval, as each
   * callback runs a little late. After a stall longer than an interval each group is
   * pinged once, not once per missed turn.
   */
  #ping(): void {
    const due = Math.floor((this.#clock() - this.#started) / this.#tickMs);
    const first = Math.max(this.#turns, due - this.#groups.length);
    this.#turns = Math.max(this.#turns, due);
    if (first >= due) return;
    const seconds = Math.floor(this.deps.now() / 1000);
    for (let turn = first; turn < due; turn++) {
      for (const sub of this.#groups[turn % this.#groups.length]!) sub.ping(seconds);
    }
  }
}
