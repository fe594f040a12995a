import {
  keyPairFromSecret,
  openEnvelope,
  sealText,
  type InboxMessage,
  type KeyPair,
  type RelayClient,
} from '../../src/client/index.js';
import type { Identity, LocalStore, StoredMessage } from './local-store.js';
import { RecordCache } from './relay-api.js';

/** One conversation: a peer and its messages in delivery order. */
export interface Conversation {
  peer: string;
  messages: StoredMessage[];
  last: StoredMessage | undefined;
}

/** A signed-in browser: its identity, its messages, and what it can do with them. */
export class Session {
  readonly keys: KeyPair;
  readonly records: RecordCache;
  private readonly byId = new Map<string, StoredMessage>();
  private readonly listeners = new Set<() => void>();

  private constructor(
    readonly identity: Required<Identity>,
    readonly client: RelayClient,
    private readonly store: LocalStore,
    messages: StoredMessage[],
  ) {
    this.keys = keyPairFromSecret(identity.secretKey);
    this.records = new RecordCache(client);
    for (const m of messages) this.byId.set(m.id, m);
  }

  static async open(identity: Required<Identity>, client: RelayClient, store: LocalStore) {
    return new Session(identity, client, store, await store.messages());
  }

  get handle(): string {
    return this.identity.handle;
  }

  /** The last received seq held: the inbox is fetched after it. */
  lastReceivedSeq(): number {
    let last = 0;
    for (const m of this.byId.values()) if (m.dir === 'in' && m.seq > last) last = m.seq;
    return last;
  }

  /** Calls `listener` after every change; returns the way to stop. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Opens received messages and keeps them; a message already held is not added again. */
  async receive(messages: readonly InboxMessage[]): Promise<void> {
    const fresh = messages.filter((m) => !this.byId.has(`in:${m.seq}`));
    const stored: StoredMessage[] = [];
    for (const m of fresh) stored.push(await this.open(m));
    await this.keep(stored);
  }

  /** Encrypts `text` to `peer`'s published key and relays it. */
  async send(peer: string, text: string): Promise<StoredMessage> {
    const record = await this.records.lookup(peer);
    const sentAt = new Date().toISOString();
    const envelope = sealText({
      text,
      to: record.fqhn,
      recipientPrimary: record.primary,
      sender: this.keys,
      sentAt,
    });
    const { seq, created_at } = await this.client.send(record.handle, envelope);
    const message: StoredMessage = {
      id: `out:${seq}`,
      dir: 'out',
      seq,
      peer: record.handle,
      text,
      sent_at: sentAt,
      created_at,
    };
    await this.keep([message]);
    return message;
  }

  /** Conversations, the latest first. */
  conversations(): Conversation[] {
    const byPeer = new Map<string, StoredMessage[]>();
    for (const m of this.byId.values()) {
      const list = byPeer.get(m.peer) ?? [];
      list.push(m);
      byPeer.set(m.peer, list);
    }
    return [...byPeer]
      .map(([peer, list]) => {
        list.sort(bySeq);
        return { peer, messages: list, last: list.at(-1) };
      })
      .sort((a, b) => (b.last?.seq ?? 0) - (a.last?.seq ?? 0));
  }

  /** The messages exchanged with `peer`, in delivery order. */
  thread(peer: string): StoredMessage[] {
    const key = peer.toLowerCase();
    return [...this.byId.values()].filter((m) => m.peer.toLowerCase() === key).sort(bySeq);
  }

  /** The conversation a received seq belongs to (a notification's target). */
  peerOfSeq(seq: number): string | undefined {
    return this.byId.get(`in:${seq}`)?.peer;
  }

  private async open(m: InboxMessage): Promise<StoredMessage> {
    const base = { id: `in:${m.seq}`, dir: 'in' as const, seq: m.seq, created_at: m.created_at };
    try {
      const opened = openEnvelope(m.envelope, this.keys, this.identity.fqhn);
      const peer = (await this.records.handleOf(opened.from)) ?? opened.from;
      return { ...base, peer, text: opened.text, sent_at: opened.sent_at };
    } catch (err) {
      if (err instanceof TypeError) throw err;
      const error = err instanceof Error ? err.message : String(err);
      return { ...base, peer: '(unreadable)', text: '', sent_at: m.created_at, error };
    }
  }

  private async keep(messages: StoredMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await this.store.putMessages(messages);
    for (const m of messages) this.byId.set(m.id, m);
    for (const listener of this.listeners) listener();
  }
}

function bySeq(a: StoredMessage, b: StoredMessage): number {
  return a.seq - b.seq || (a.dir === b.dir ? 0 : a.dir === 'out' ? -1 : 1);
}
