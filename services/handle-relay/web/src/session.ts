import {
  keyPairFromSecret,
  sealSentCopy,
  sealText,
  type InboxMessage,
  type KeyPair,
  type RelayClient,
} from '../../src/client/index.js';
import { bareHandle, isCopyAmong, openWithKeys, sameWordsAmong } from './inbox-open.js';
import { KeyTrust } from './key-trust.js';
import type { ClaimedIdentity, LocalStore, ReadMarks, StoredMessage } from './local-store.js';
import { byOrder, conversationsOf, type Conversation } from './message-order.js';
import { plainWords, RecordCache } from './relay-api.js';

/** Waits before each new try of a self-copy whose post failed. */
const COPY_RETRY_MS = [1_000, 4_000, 15_000, 60_000];

/** A signed-in browser: its identity, its messages, and what it can do with them. */
export class Session {
  readonly keys: KeyPair;
  readonly records: RecordCache;
  /** Peers' keys: verified, pinned, and which one a message may be sealed to. */
  readonly trust: KeyTrust;
  /** The keys this handle had before a rotation: messages sealed to them still open. */
  private readonly previousKeys: KeyPair[];
  private readonly byId = new Map<string, StoredMessage>();
  private readonly listeners = new Set<() => void>();
  /** Sends go one after another, in the order written. */
  private queue: Promise<void> = Promise.resolve();
  private queued = 0;
  /** The conversation on screen (its arrivals are read at once while the page is seen). */
  private viewing: string | undefined;

  private constructor(
    readonly identity: ClaimedIdentity,
    readonly client: RelayClient,
    private readonly store: LocalStore,
    messages: StoredMessage[],
    private readonly reads: ReadMarks,
  ) {
    this.keys = keyPairFromSecret(identity.secretKey);
    this.records = new RecordCache(client);
    this.trust = new KeyTrust(client, store, () => this.changed());
    this.previousKeys = (identity.previousSecretKeys ?? []).map((k) => keyPairFromSecret(k));
    for (const m of messages) this.byId.set(m.id, m);
    this.queued = Math.max(0, ...messages.map((m) => m.queuedAt ?? 0));
  }

  static async open(identity: ClaimedIdentity, client: RelayClient, store: LocalStore) {
    const [messages, marks] = await Promise.all([store.messages(), store.readMarks()]);
    // Kept before read marks existed: everything held then counts as read.
    const reads: ReadMarks = marks ?? {};
    if (!marks) {
      for (const m of messages) {
        const peer = m.peer.toLowerCase();
        if (m.dir === 'in' && m.seq > (reads[peer] ?? 0)) reads[peer] = m.seq;
      }
      await store.saveReadMarks(reads);
    }
    const session = new Session(identity, client, store, messages, reads);
    // A send the page did not see the end of (closed, reloaded) may or may not have gone:
    // it is shown failed, for the person to retry; a copy arriving later settles it.
    const interrupted = [...session.byId.values()]
      .filter((m) => m.state === 'sending')
      .map((m) => ({
        ...m,
        state: 'failed' as const,
        sendError: 'The page closed before the relay answered. Retry to send it.',
      }));
    await session.keep(interrupted);
    return session;
  }

  get handle(): string {
    return this.identity.handle;
  }

  /** The last seq of the own inbox held: the inbox is fetched after it. */
  lastReceivedSeq(): number {
    let last = 0;
    for (const m of this.byId.values()) {
      if ((m.id.startsWith('in:') || m.id.startsWith('self:')) && m.seq > last) last = m.seq;
      if (m.copySeq !== undefined && m.copySeq > last) last = m.copySeq;
    }
    return last;
  }

  /** Calls `listener` after every change; returns the way to stop. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Opens inbox messages and keeps them; a message already held is not added again. */
  async receive(messages: readonly InboxMessage[]): Promise<void> {
    const copies = new Set<number>();
    for (const m of this.byId.values()) if (m.copySeq !== undefined) copies.add(m.copySeq);
    const fresh = messages.filter(
      (m) => !this.byId.has(`in:${m.seq}`) && !this.byId.has(`self:${m.seq}`) && !copies.has(m.seq),
    );
    const stored: StoredMessage[] = [];
    for (const m of fresh) {
      const opened = await this.open(m);
      if (!opened) continue;
      const twice =
        opened.id.startsWith('self:') &&
        isCopyAmong(opened.peer, opened.sent_at, opened.text, stored);
      if (!twice) stored.push(opened);
    }
    await this.keep(stored);
    // Arrivals in the conversation on screen are read, while the page is seen.
    if (this.viewing !== undefined && document.visibilityState === 'visible') {
      await this.markRead(this.viewing);
    }
  }

  /**
   * Queues `text` for `peer` and shows it at once as sending; sends go in the order
   * written, each after the one before has its answer. A failure leaves the message shown
   * as failed, with why, for `retry`.
   */
  async enqueue(peer: string, text: string): Promise<StoredMessage> {
    this.queued = Math.max(this.queued + 1, Date.now());
    const message: StoredMessage = {
      id: `local:${this.queued}:${Math.random().toString(36).slice(2, 10)}`,
      dir: 'out',
      seq: 0,
      peer,
      text,
      sent_at: new Date().toISOString(),
      created_at: '',
      state: 'sending',
      queuedAt: this.queued,
    };
    await this.keep([message]);
    this.schedule(message.id);
    return message;
  }

  /** Sends a failed message again, at the end of the queue. */
  async retry(id: string): Promise<void> {
    const message = this.byId.get(id);
    if (message?.state !== 'failed') return;
    this.queued = Math.max(this.queued + 1, Date.now());
    await this.keep([{ ...message, state: 'sending', queuedAt: this.queued }]);
    this.schedule(id);
  }

  /** Resolves once every queued send has its answer (tests, and leaving the page). */
  settled(): Promise<void> {
    return this.queue;
  }

  /** The conversation now on screen, or none; opening one reads it. */
  async view(peer: string | undefined): Promise<void> {
    this.viewing = peer?.toLowerCase();
    if (peer !== undefined) await this.markRead(peer);
  }

  /** Marks every message of `peer` held now read (one mark: the last seq received). */
  async markRead(peer: string): Promise<void> {
    const key = peer.toLowerCase();
    let last = this.reads[key] ?? 0;
    for (const m of this.byId.values()) {
      if (m.dir === 'in' && m.seq > last && m.peer.toLowerCase() === key) last = m.seq;
    }
    if (last === (this.reads[key] ?? 0)) return;
    this.reads[key] = last;
    await this.store.saveReadMarks(this.reads);
    // The conversation on screen already shows no unread: nothing to draw again.
    if (key !== this.viewing || document.visibilityState !== 'visible') this.changed();
  }

  private isUnread(m: StoredMessage): boolean {
    const peer = m.peer.toLowerCase();
    // The conversation on screen is being read (its mark follows once kept).
    if (peer === this.viewing && document.visibilityState === 'visible') return false;
    return m.id.startsWith('in:') && m.seq > (this.reads[peer] ?? 0);
  }

  /** Conversations, the one with the latest message first. */
  conversations(): Conversation[] {
    return conversationsOf(this.byId.values(), (m) => this.isUnread(m));
  }

  /** The messages exchanged with `peer`, in delivery order (unsent ones last). */
  thread(peer: string): StoredMessage[] {
    const key = peer.toLowerCase();
    return [...this.byId.values()].filter((m) => m.peer.toLowerCase() === key).sort(byOrder);
  }

  /** The conversation a received seq belongs to (a notification's target). */
  peerOfSeq(seq: number): string | undefined {
    return this.byId.get(`in:${seq}`)?.peer;
  }

  private schedule(id: string): void {
    this.queue = this.queue.then(() => this.deliver(id));
  }

  /** Sends one queued message: to the peer, then its copy to the own inbox. */
  private async deliver(id: string): Promise<void> {
    const queued = this.byId.get(id);
    if (queued?.state !== 'sending') return;
    const sentAt = new Date().toISOString();
    let record;
    let stored: StoredMessage;
    try {
      // Sealed only to a key verified (or accepted) here: never to one the relay swapped in.
      record = await this.trust.keyForSend(queued.peer);
      const envelope = sealText({
        text: queued.text,
        to: record.fqhn,
        recipientPrimary: record.primary,
        sender: this.keys,
        sentAt,
      });
      // The time sealed is held before the send (a copy arriving meanwhile finds it); it is
      // written with the answer.
      this.byId.set(id, { ...queued, sent_at: sentAt });
      const { seq, created_at } = await this.client.send(record.handle, envelope);
      stored = {
        ...(this.byId.get(id) ?? queued),
        state: undefined,
        sendError: undefined,
        seq,
        created_at,
        sent_at: sentAt,
      };
      await this.keep([stored]);
    } catch (err) {
      const failed = this.byId.get(id) ?? queued;
      await this.keep([
        { ...failed, state: 'failed', sendError: plainWords(err, `Sending to ${queued.peer}`) },
      ]);
      return;
    }
    if (record.handle.toLowerCase() === this.handle.toLowerCase()) return;
    // The copy for this key's other devices (CONTRACT, "Additions, part 2"). Its failure
    // does not undo the message, which the peer has.
    const copy = sealSentCopy({ text: stored.text, to: record.fqhn, sender: this.keys, sentAt });
    await this.sendCopy(id, copy, 0);
  }

  /**
   * Posts a sent message's copy to the own inbox. A failed post is tried again after
   * `COPY_RETRY_MS[attempt]`, off the send queue (the next messages do not wait); after
   * the last, other devices miss this one message, which this one shows.
   */
  private async sendCopy(id: string, copy: unknown, attempt: number): Promise<void> {
    // Stored after all: an earlier post's answer was lost, and the copy came back live.
    if (this.byId.get(id)?.copySeq !== undefined) return;
    try {
      const { seq } = await this.client.send(this.handle, copy);
      const now = this.byId.get(id);
      if (now && now.copySeq === undefined) await this.keep([{ ...now, copySeq: seq }]);
    } catch {
      const delay = COPY_RETRY_MS[attempt];
      if (delay !== undefined) setTimeout(() => void this.sendCopy(id, copy, attempt + 1), delay);
    }
  }

  /** A stored message for an inbox message; undefined for a copy already shown here. */
  private async open(m: InboxMessage): Promise<StoredMessage | undefined> {
    const base = { seq: m.seq, created_at: m.created_at };
    try {
      const opened = openWithKeys(
        m.envelope,
        [this.keys, ...this.previousKeys],
        this.identity.fqhn,
      );
      if (opened.type === 'sent') {
        const peer = bareHandle(this.identity.fqhn, opened.to);
        const mine = this.writtenHere(peer, opened.sent_at, opened.text);
        if (mine) {
          // This page wrote it: the copy confirms it went (a send interrupted by a reload).
          const settled: StoredMessage = mine.state
            ? {
                ...mine,
                state: undefined,
                sendError: undefined,
                seq: m.seq,
                created_at: m.created_at,
              }
            : { ...mine };
          await this.keep([{ ...settled, copySeq: m.seq }]);
          return undefined;
        }
        // A copy posted twice (its first post stored, the answer lost, then retried): once.
        if (isCopyAmong(peer, opened.sent_at, opened.text, this.byId.values())) return undefined;
        return {
          ...base,
          id: `self:${m.seq}`,
          dir: 'out',
          peer,
          text: opened.text,
          sent_at: opened.sent_at,
        };
      }
      const peer = (await this.records.handleOf(opened.from)) ?? opened.from;
      return {
        ...base,
        id: `in:${m.seq}`,
        dir: 'in',
        peer,
        text: opened.text,
        sent_at: opened.sent_at,
      };
    } catch (err) {
      if (err instanceof TypeError) throw err;
      const error = err instanceof Error ? err.message : String(err);
      return {
        ...base,
        id: `in:${m.seq}`,
        dir: 'in',
        peer: '(unreadable)',
        text: '',
        sent_at: m.created_at,
        error,
      };
    }
  }

  /** A message written on this page matching a copy from the own inbox. */
  private writtenHere(peer: string, sentAt: string, text: string): StoredMessage | undefined {
    return sameWordsAmong('local:', peer, sentAt, text, this.byId.values());
  }

  private async keep(messages: StoredMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await this.store.putMessages(messages);
    for (const m of messages) this.byId.set(m.id, m);
    this.changed();
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}
