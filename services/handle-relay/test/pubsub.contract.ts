import type { RelayedMessage } from '../src/messages/message.model.js';
import type { PubSub, PubSubListener } from '../src/pubsub/pubsub.port.js';
import { waitFor } from './wait-for.js';

/** One adapter under test: its pub/sub and a way to publish as the send path does. */
export interface PubSubFixture {
  pubsub: PubSub;
  publish(handle: string, message: RelayedMessage): Promise<void>;
  /** Large messages travel by reference; the fixture's store must know them. */
  remember(message: RelayedMessage): Promise<void>;
  close(): Promise<void>;
}

/** A listener that records what it hears. */
export function recorder(): PubSubListener & {
  seqs: number[];
  got: RelayedMessage[];
  resyncs: number;
} {
  const r = {
    seqs: [] as number[],
    got: [] as RelayedMessage[],
    resyncs: 0,
    message(m: RelayedMessage) {
      r.seqs.push(m.seq);
      r.got.push(m);
    },
    resync() {
      r.resyncs += 1;
    },
  };
  return r;
}

let nextSeq = 1;
/** A message for `recipient` with a fresh seq. */
export function relayed(recipient: string, envelope: unknown = { n: nextSeq }): RelayedMessage {
  return {
    seq: nextSeq++,
    recipient,
    envelopeJson: JSON.stringify(envelope),
    createdAt: new Date().toISOString(),
  };
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

    it('delivers a published message to every listener of that handle and to no other', async () => {
      const a1 = recorder();
      const a2 = recorder();
      const b = recorder();
      f.pubsub.subscribe('alice', a1);
      f.pubsub.subscribe('alice', a2);
      f.pubsub.subscribe('bob', b);
      const m = relayed('alice', { hello: 'world' });
      await f.publish('alice', m);
      await waitFor(() => a1.got.length === 1 && a2.got.length === 1, 'both listeners');
      expect(a1.got).toEqual([m]);
      expect(a2.got).toEqual([m]);
      await f.publish('carol', relayed('carol'));
      const marker = relayed('bob');
      await f.publish('bob', marker);
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
      const m = relayed('alice');
      await f.publish('alice', m);
      await waitFor(() => keep.got.length === 1, 'the remaining listener');
      expect(a.got).toEqual([]);
    });

    it('keeps the publishing order of a burst', async () => {
      const a = recorder();
      f.pubsub.subscribe('alice', a);
      const sent = Array.from({ length: 200 }, () => relayed('alice'));
      for (const m of sent) await f.publish('alice', m);
      await waitFor(() => a.got.length === sent.length, 'the whole burst');
      expect(a.seqs).toEqual(sent.map((m) => m.seq));
    });

    it('delivers a message too large for a notification intact and in order', async () => {
      const a = recorder();
      f.pubsub.subscribe('alice', a);
      const small1 = relayed('alice', 'before');
      const big = relayed('alice', { blob: 'x'.repeat(100_000) });
      const small2 = relayed('alice', 'after');
      await f.remember(big);
      await f.publish('alice', small1);
      await f.publish('alice', big);
      await f.publish('alice', small2);
      await waitFor(() => a.got.length === 3, 'three messages');
      expect(a.got).toEqual([small1, big, small2]);
    });
  });
}
