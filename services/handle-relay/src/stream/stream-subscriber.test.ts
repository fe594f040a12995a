import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { createLogger } from '@svc/envelope';
import type { RelayedMessage } from '../messages/message.model.js';
import { StreamSubscriber } from './stream-subscriber.js';

/** A response whose socket accepts writes only while `writable` is true. */
class FakeResponse extends EventEmitter {
  chunks: string[] = [];
  writable = true;
  writableEnded = false;
  destroyed = false;
  get writableNeedDrain(): boolean {
    return !this.writable;
  }
  write(chunk: string): boolean {
    this.chunks.push(chunk);
    return this.writable;
  }
  end(): void {
    this.writableEnded = true;
  }
  drain(): void {
    this.writable = true;
    this.emit('drain');
  }
  /** The SSE events written so far, as `event` + parsed data (message seqs only). */
  events(): string[] {
    return this.chunks.map((c) => {
      const event = /^event: (.*)$/m.exec(c)?.[1] ?? '?';
      const data = /^data: (.*)$/m.exec(c)?.[1] ?? '';
      return event === 'message'
        ? `message ${(JSON.parse(data) as { seq: number }).seq}`
        : `${event} ${data}`;
    });
  }
}

const logger = createLogger('subscriber-test', 'silent');
const msg = (seq: number): RelayedMessage => ({
  seq,
  recipient: 'alice',
  envelopeJson: `{"n":${seq}}`,
  createdAt: '2026-11-21T05:00:00.000Z',
});
const tick = () => new Promise((resolve) => setImmediate(resolve));

function subscriber(res: FakeResponse, stored: RelayedMessage[] = []) {
  return new StreamSubscriber({
    handle: 'alice',
    res: res as unknown as Response,
    bufferSize: 64,
    readAfter: (_h, after, limit) =>
      Promise.resolve(stored.filter((m) => m.seq > after).slice(0, limit)),
    logger,
  });
}

describe('stream subscriber buffer', () => {
  it('holds at most 64 undrained messages and reports the overflow as lagged once drained', async () => {
    const res = new FakeResponse();
    const sub = subscriber(res);
    sub.start(0, false, () => undefined);
    res.writable = false;
    for (let seq = 1; seq <= 70; seq++) sub.message(msg(seq));
    await tick();
    // One frame is in the socket (waiting for drain), 64 wait in the buffer, 5 were dropped.
    expect(res.events()).toEqual(['message 1']);
    res.drain();
    await tick();
    const expected = Array.from({ length: 65 }, (_, i) => `message ${i + 1}`);
    expect(res.events()).toEqual([...expected, 'lagged {"dropped":5}']);
  });

  it('drops every live message after an overflow until lagged is written: no message past the gap', async () => {
    const res = new FakeResponse();
    const sub = subscriber(res);
    sub.start(0, false, () => undefined);
    res.writable = false;
    for (let seq = 1; seq <= 70; seq++) sub.message(msg(seq));
    await tick();
    // The socket takes one more frame and backs up again: the buffer has room for one.
    res.drain();
    res.writable = false;
    await tick();
    expect(res.events()).toEqual(['message 1', 'message 2']);
    sub.message(msg(71));
    res.drain();
    await tick();
    const expected = Array.from({ length: 65 }, (_, i) => `message ${i + 1}`);
    expect(res.events()).toEqual([...expected, 'lagged {"dropped":6}']);
    // After lagged, live messages flow again.
    sub.message(msg(72));
    await tick();
    expect(res.events().at(-1)).toBe('message 72');
  });

  it('writes each message once even when it arrives live and from the replay', async () => {
    const stored = [msg(1), msg(2), msg(3)];
    const res = new FakeResponse();
    const sub = subscriber(res, stored);
    sub.message(msg(2));
    sub.message(msg(3));
    sub.message(msg(4));
    sub.start(0, true, () => undefined);
    await tick();
    expect(res.events()).toEqual(['message 1', 'message 2', 'message 3', 'message 4']);
  });

  it('re-reads the store instead of dropping when the buffer overflows during a replay', async () => {
    const all = Array.from({ length: 100 }, (_, i) => msg(i + 1));
    const stored = all.slice(0, 10);
    const res = new FakeResponse();
    const sub = subscriber(res, stored);
    res.writable = false;
    sub.start(0, true, () => undefined);
    await tick();
    for (const m of all.slice(10)) {
      stored.push(m);
      sub.message(m);
    }
    res.drain();
    await tick();
    await tick();
    expect(res.events()).toEqual(all.map((m) => `message ${m.seq}`));
  });

  it('skips the keep-alive while the socket is backed up and ends cleanly when stopped', async () => {
    const res = new FakeResponse();
    let unsubscribed = 0;
    const sub = subscriber(res);
    sub.start(0, false, () => (unsubscribed += 1));
    sub.ping(1_700_000_000);
    res.writable = false;
    sub.ping(1_700_000_015);
    sub.stop();
    sub.stop();
    sub.message(msg(1));
    await tick();
    expect(res.events()).toEqual(['ping 1700000000']);
    expect(res.writableEnded).toBe(true);
    expect(unsubscribed).toBe(1);
  });
});
