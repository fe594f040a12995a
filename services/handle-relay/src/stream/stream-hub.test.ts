import { jest } from '@jest/globals';
import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { createLogger } from '@svc/envelope';
import type { PubSub } from '../pubsub/pubsub.port.js';
import { StreamHub } from './stream-hub.js';

/** Just enough of a response for a stream to open and take pings. */
class FakeResponse extends EventEmitter {
  chunks: string[] = [];
  writableNeedDrain = false;
  writableEnded = false;
  destroyed = false;
  status(): this {
    return this;
  }
  setHeader(): void {}
  flushHeaders(): void {}
  write(chunk: string): boolean {
    this.chunks.push(chunk);
    return true;
  }
  end(): void {
    this.writableEnded = true;
  }
  pings(): number {
    return this.chunks.filter((c) => c.startsWith('event: ping\n')).length;
  }
}

const pubsub = { subscribe: () => () => undefined } as unknown as PubSub;

describe('stream hub keep-alive', () => {
  let extra = 0;
  let hub: StreamHub;
  let res: FakeResponse;

  beforeEach(async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    extra = 0;
    hub = new StreamHub({
      pubsub,
      readAfter: () => Promise.resolve([]),
      latestSeq: () => Promise.resolve(0),
      logger: createLogger('hub-test', 'silent'),
      now: () => 1_800_000_000_000,
      // Every 10 ms timer callback comes when 12 ms have passed: each one runs late.
      monotonicNow: () => Date.now() * 1.2 + extra,
      pingIntervalMs: 1000,
    });
    res = new FakeResponse();
    await hub.open('alice', 0, res as unknown as Response);
  });

  afterEach(async () => {
    await hub.close();
    jest.useRealTimers();
  });

  it('pings each stream once per interval of the clock, however late the timer runs', () => {
    // 10 s of timer callbacks are 12 s of the clock: 12 pings, where counting callbacks
    // would have sent 10.
    jest.advanceTimersByTime(10_000);
    expect(res.pings()).toBe(12);
    expect(res.chunks[0]).toBe('event: ping\ndata: 1800000000\n\n');
  });

  it('pings each stream once after a stall of several intervals', () => {
    jest.advanceTimersByTime(1000);
    const before = res.pings();
    extra += 5000;
    jest.advanceTimersByTime(10);
    expect(res.pings()).toBe(before + 1);
  });
});

describe('stream hub first ping', () => {
  it('comes one interval after the stream opened, whenever it opened', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const start = Date.now();
    const hub = new StreamHub({
      pubsub,
      readAfter: () => Promise.resolve([]),
      latestSeq: () => Promise.resolve(0),
      logger: createLogger('hub-test', 'silent'),
      now: () => 1_800_000_000_000,
      monotonicNow: () => Date.now() - start,
      pingIntervalMs: 1000,
    });
    try {
      jest.advanceTimersByTime(370);
      const res = new FakeResponse();
      await hub.open('alice', 0, res as unknown as Response);
      jest.advanceTimersByTime(990);
      expect(res.pings()).toBe(0);
      jest.advanceTimersByTime(10);
      expect(res.pings()).toBe(1);
      jest.advanceTimersByTime(1000);
      expect(res.pings()).toBe(2);
    } finally {
      await hub.close();
      jest.useRealTimers();
    }
  });
});
