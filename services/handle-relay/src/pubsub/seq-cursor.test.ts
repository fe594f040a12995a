import { createLogger } from '@svc/envelope';
import type { RelayedMessage } from '../messages/message.model.js';
import { ListenerRegistry } from './listener-registry.js';
import { SeqCursor } from './seq-cursor.js';

const row = (seq: number): RelayedMessage => ({
  seq,
  recipient: 'alice',
  envelopeJson: `{"n":${seq}}`,
  createdAt: '2026-12-07T05:00:00.000Z',
});

/** A cursor at seq 0 over a store holding `stored`, recording what alice hears and each read. */
function cursorOver(stored: RelayedMessage[]) {
  const listeners = new ListenerRegistry();
  const heard: number[] = [];
  listeners.add('alice', { message: (m) => heard.push(m.seq) });
  const reads: number[] = [];
  const cursor = new SeqCursor({
    listeners,
    readAfter: (after, limit) => {
      reads.push(after);
      return Promise.resolve(stored.filter((m) => m.seq > after).slice(0, limit));
    },
    logger: createLogger('seq-cursor-test', 'silent'),
    lastSeen: 0,
  });
  return { cursor, heard, reads };
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SeqCursor', () => {
  it('hands on batches that arrive out of order in seq order, without reading the store', async () => {
    const { cursor, heard, reads } = cursorOver([]);
    cursor.offer([row(3), row(4)]);
    cursor.offer([row(5)]);
    expect(heard).toEqual([]);
    cursor.offer([row(1), row(2)]);
    expect(heard).toEqual([1, 2, 3, 4, 5]);
    await settle(30);
    expect(reads).toEqual([]);
    await cursor.close();
  });

  it('reads the store when the batch before does not come, and sends nothing twice', async () => {
    const { cursor, heard, reads } = cursorOver([row(1), row(2), row(3)]);
    cursor.offer([row(3)]);
    await settle(40);
    expect(reads).toEqual([0]);
    expect(heard).toEqual([1, 2, 3]);
    cursor.offer([row(1), row(2)]);
    cursor.offer([row(3)]);
    expect(heard).toEqual([1, 2, 3]);
    await cursor.close();
  });
});
