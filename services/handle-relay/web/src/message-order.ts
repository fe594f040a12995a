import type { StoredMessage } from './local-store.js';

/** One conversation: a peer, its messages in delivery order, and how many are unread. */
export interface Conversation {
  peer: string;
  messages: StoredMessage[];
  last: StoredMessage | undefined;
  unread: number;
}

/**
 * Where a message sorts: the relay's seq once stored (one sequence for every inbox, so both
 * sides agree); a message not stored yet comes after all of them, in the order written.
 */
export function orderOf(m: StoredMessage): number {
  return m.seq > 0 ? m.seq : Number.MAX_SAFE_INTEGER / 2 + (m.queuedAt ?? 0);
}

export function byOrder(a: StoredMessage, b: StoredMessage): number {
  return orderOf(a) - orderOf(b) || (a.dir === b.dir ? 0 : a.dir === 'out' ? -1 : 1);
}

/** `messages` by peer, each in delivery order, the conversation with the latest first. */
export function conversationsOf(
  messages: Iterable<StoredMessage>,
  isUnread: (m: StoredMessage) => boolean,
): Conversation[] {
  const byPeer = new Map<string, StoredMessage[]>();
  for (const m of messages) {
    const list = byPeer.get(m.peer) ?? [];
    list.push(m);
    byPeer.set(m.peer, list);
  }
  return [...byPeer]
    .map(([peer, list]) => {
      list.sort(byOrder);
      const unread = list.filter(isUnread).length;
      return { peer, messages: list, last: list.at(-1), unread };
    })
    .sort((a, b) => orderOf(b.last!) - orderOf(a.last!) || a.peer.localeCompare(b.peer));
}
