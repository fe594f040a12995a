import type { RelayedMessage } from '../src/messages/message.model.js';
import type { PubSub, PubSubListener } from '../src/pubsub/pubsub.port.js';
import { waitFor } from './wait-for.js';

/** One adapter under test: its pub/sub and the send path (store, then deliver). */
export interface PubSubFixture {
  pubsub: PubSub;
  /** Stores a message for `handle` the way a send does and returns it as stored. */
  store(handle: string, envelope: unknown): Promise<RelayedMessage>;
  close(): Promise<void>;
}

/** A listener that records what it hears. */
export function recorder(): PubSubListener & { seqs: number[]; got: RelayedMessage[] } {
  const r = {
    seqs: [] as number[],
    got: [] as RelayedMessage[],
    message(m: RelayedMessage) {
      r.seqs.push(m.seq);
      r.got.push(m);
    },
  };
  return r;
}

/** The behaviour every pub/sub adapter must show (run once per adapter). */
export function pubSubContract(name: string, make: () => Promise<PubSubFixture>): void {
  describe(`pub/sub contract: ${name}`, () => {
    let f: PubSubFixture;
    beforeEach(async () => {
      f = await make();
    });
    afterEach(async () => {
      await f.close();
    });

    it('delivers a stored message to every listener of that handle and to no other', async () => {
      const a1 = recorder();
      const a2 = recorder();
      const b = recorder();
      f.pubsub.subscribe('alice', a1);
      f.pubsub.subscribe('alice', a2);
      f.pubsub.subscribe('bob', b);
      const m = await f.store('alice', { hello: 'world' });
      await waitFor(() => a1.got.length === 1 && a2.got.length === 1, 'both listeners');
      expect(a1.got).toEqual([m]);
      expect(a2.got).toEqual([m]);
      await f.store('carol', 'not for bob');
      const marker = await f.store('bob', 'marker');
      await waitFor(() => b.got.length === 1, 'bob');
      expect(b.got).toEqual([marker]);
      expect(a1.got).toHaveLength(1);
    });

    it('stops delivering after unsubscribe', async () => {
      const a = recorder();
      const keep = recorder();
      const off = f.pubsub.subscribe('alice', a);
      f.pubsub.subscribe('alice', keep);
      off();
      off();
      await f.store('alice', 'after unsubscribe');
      await waitFor(() => keep.got.length === 1, 'the remaining listener');
      expect(a.got).toEqual([]);
    });

    it('delivers a burst in seq order', async () => {
      const a = recorder();
      f.pubsub.subscribe('alice', a);
      const sent = [];
      for (let n = 0; n < 200; n++) sent.push(await f.store('alice', { n }));
      await waitFor(() => a.got.length === sent.length, 'the whole burst');
      expect(a.seqs).toEqual(sent.map((m) => m.seq));
    });

    it('delivers a message too large for a notification intact and in order', async () => {
      const a = recorder();
      f.pubsub.subscribe('alice', a);
      const small1 = await f.store('alice', 'before');
      const big = await f.store('alice', { blob: 'x'.repeat(100_000) });
      const quoted = await f.store('alice', '"'.repeat(4_000));
      const small2 = await f.store('alice', 'after');
      await waitFor(() => a.got.length === 4, 'four messages');
      expect(a.got).toEqual([small1, big, quoted, small2]);
    });
  });
}
