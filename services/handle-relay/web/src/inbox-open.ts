import { openMessage, type KeyPair } from '../../src/client/index.js';
import type { StoredMessage } from './local-store.js';

/** Opens `envelope` with the first of `keys` that can (the current key, then earlier ones). */
export function openWithKeys(envelope: unknown, keys: readonly KeyPair[], fqhn: string) {
  let first: unknown;
  for (const k of keys) {
    try {
      return openMessage(envelope, k, fqhn);
    } catch (err) {
      first ??= err;
    }
  }
  throw first;
}

/** The peer a `handle@server` of this relay (`fqhn`'s server) names: its bare handle. */
export function bareHandle(fqhn: string, to: string): string {
  const server = fqhn.slice(fqhn.indexOf('@'));
  return to.toLowerCase().endsWith(server.toLowerCase()) ? to.slice(0, -server.length) : to;
}

/**
 * The message of `messages` whose id starts with `prefix` (`self:` a copy from the own
 * inbox, `local:` one written on this page) with these words to this peer at this time.
 */
export function sameWordsAmong(
  prefix: string,
  peer: string,
  sentAt: string,
  text: string,
  messages: Iterable<StoredMessage>,
): StoredMessage | undefined {
  const key = peer.toLowerCase();
  for (const m of messages) {
    if (
      m.id.startsWith(prefix) &&
      m.sent_at === sentAt &&
      m.text === text &&
      m.peer.toLowerCase() === key
    ) {
      return m;
    }
  }
  return undefined;
}

/** Whether `messages` hold a copy from the own inbox with these words (a copy posted twice). */
export function isCopyAmong(
  peer: string,
  sentAt: string,
  text: string,
  messages: Iterable<StoredMessage>,
): boolean {
  return sameWordsAmong('self:', peer, sentAt, text, messages) !== undefined;
}
