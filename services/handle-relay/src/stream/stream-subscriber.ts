import type { Response } from 'express';
import type { Logger } from 'pino';
import type { RelayedMessage } from '../messages/message.model.js';
import type { PubSubListener } from '../pubsub/pubsub.port.js';
import { laggedFrame, messageFrame, pingFrame } from './sse-frames.js';
import type { RelayMetrics } from '../metrics/relay-metrics.js';

/** Replay reads the store in pages of this many messages. */
const REPLAY_PAGE = 500;

/** What one subscriber needs from the hub. */
export interface SubscriberDeps {
  handle: string;
  res: Response;
  /** Slots for live messages not yet written to the socket. */
  bufferSize: number;
  readAfter: (handle: string, afterSeq: number, limit: number) => Promise<RelayedMessage[]>;
  logger: Logger;
  metrics?: Pick<RelayMetrics, 'messageDelivered' | 'lagged'>;
}

/**
 * One open stream. Live messages wait in a bounded queue while the socket is busy; when the
 * queue is full a live message is dropped and counted, and so is every later one until the
 * queue drains and the count is reported as `lagged`. While the stream replays from the store (at connect)
 * an overflowing message is not lost: the
 * subscriber reads the store again from its last written seq instead. Every message is
 * written at most once, because only seqs above the last written one go out.
 */
export class StreamSubscriber implements PubSubListener {
  /** The last seq written to this stream (the client's resume point). */
  lastSent = 0;
  #queue: RelayedMessage[] = [];
  #dropped = 0;
  #needsReplay = false;
  #replaying = false;
  #pumping = false;
  #started = false;
  #stopped = false;
  #unsubscribe: () => void = () => undefined;

  constructor(private readonly deps: SubscriberDeps) {}

  /** Starts writing from `afterSeq`, replaying stored messages first when `replay` is set. */
  start(afterSeq: number, replay: boolean, unsubscribe: () => void): void {
    this.lastSent = afterSeq;
    this.#needsReplay ||= replay;
    this.#unsubscribe = unsubscribe;
    this.#started = true;
    this.#kick();
  }

  /** A live message for this handle (pub/sub listener). */
  message(m: RelayedMessage): void {
    if (this.#stopped) return;
    // Once one live message was dropped, every later one is too until `lagged` is written:
    // a message after the gap would move the client's resume point past what it lost.
    if (this.#queue.length >= this.deps.bufferSize || this.#dropped > 0) {
      if (this.#replaying || this.#needsReplay || !this.#started) this.#needsReplay = true;
      else this.#dropped += 1;
      return;
    }
    this.#queue.push(m);
    this.#kick();
  }

  /** Keep-alive; skipped while the socket is backed up (the client is alive but slow). */
  ping(unixSeconds: number): void {
    if (this.#stopped || this.deps.res.writableNeedDrain) return;
    this.deps.res.write(pingFrame(unixSeconds));
  }

  /** Ends the stream (client gone or server shutting down); idempotent. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#queue = [];
    this.#unsubscribe();
    if (!this.deps.res.writableEnded) this.deps.res.end();
  }

  #kick(): void {
    if (this.#pumping || this.#stopped || !this.#started) return;
    this.#pumping = true;
    this.#pump().catch((err: unknown) => {
      this.#pumping = false;
      this.deps.logger.error({ err, handle: this.deps.handle }, 'stream failed; closing it');
      this.stop();
    });
  }

  async #pump(): Promise<void> {
    while (!this.#stopped) {
      if (this.#needsReplay) {
        this.#needsReplay = false;
        this.#replaying = true;
        const page = await this.deps.readAfter(this.deps.handle, this.lastSent, REPLAY_PAGE);
        for (const m of page) await this.#writeMessage(m);
        if (page.length === REPLAY_PAGE) this.#needsReplay = true;
        this.#replaying = false;
        continue;
      }
      const next = this.#queue.shift();
      if (next) {
        await this.#writeMessage(next);
        continue;
      }
      if (this.#dropped > 0) {
        const dropped = this.#dropped;
        this.#dropped = 0;
        this.deps.metrics?.lagged(dropped);
        await this.#write(laggedFrame(dropped));
        continue;
      }
      // Cleared in the same turn as the last check, so a message arriving after it kicks anew.
      this.#pumping = false;
      return;
    }
    this.#pumping = false;
  }

  async #writeMessage(m: RelayedMessage): Promise<void> {
    if (this.#stopped || m.seq <= this.lastSent) return;
    this.lastSent = m.seq;
    this.deps.metrics?.messageDelivered(this.#replaying ? 'replay' : 'live');
    await this.#write(messageFrame(m));
  }

  /** Writes one frame and, when the socket is backed up, waits for it to drain. */
  #write(frame: string): Promise<void> | undefined {
    const { res } = this.deps;
    if (this.#stopped || res.destroyed || res.write(frame)) return undefined;
    return new Promise((resolve) => {
      const done = (): void => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  }
}
