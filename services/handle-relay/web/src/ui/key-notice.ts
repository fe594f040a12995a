import type { PeerKey } from '../key-trust.js';
import { h } from './dom.js';

/** Where a conversation's Verify view is. */
export function verifyHref(peer: string): string {
  return `#/c/${encodeURIComponent(peer)}/verify`;
}

/** What the person can do about a key notice. */
export interface NoticeActions {
  accept: () => void;
  dismiss: () => void;
}

/**
 * What a conversation says about its peer's key, or null when there is nothing to say:
 * the key-change warning (an alert: sending is blocked until the key is accepted), a note
 * on a rotation the log explains, or on a key pinned on first use.
 */
export function keyNotice(
  peer: string,
  known: PeerKey | undefined,
  actions: NoticeActions,
  { withVerifyLink = true } = {},
): HTMLElement | null {
  const verify = withVerifyLink
    ? h('a', { href: verifyHref(peer) }, 'Compare the safety number')
    : null;
  if (known?.state === 'changed') {
    const what =
      known.pinned === undefined
        ? `The relay gives ${known.key} for ${known.fqhn}. `
        : known.pinned === known.key
          ? `The key you pinned for ${known.fqhn}, ${known.key}, could not be verified again. `
          : `You pinned ${known.pinned} for ${known.fqhn}; the relay now gives ${known.key}. `;
    // A key that replaced the pinned one, or one never pinned (or pinned) that no proof holds.
    const changed = known.pinned !== undefined && known.pinned !== known.key;
    const title = changed
      ? `The key of ${peer} changed`
      : `The key of ${peer} could not be verified${known.pinned === undefined ? '' : ' again'}`;
    const why = changed
      ? `Someone may be trying to read your messages, or ${peer} started over with a new key.`
      : `Someone may be trying to read your messages, or the relay has no proof for this key (a handle registered before signature chains existed has none).`;
    return h(
      'div',
      { class: 'key-banner', role: 'alert', 'aria-labelledby': 'key-banner-title' },
      h('p', { id: 'key-banner-title', class: 'banner-title' }, title),
      h('p', {}, what, known.reason),
      h(
        'p',
        {},
        `${why} Sending is paused until you accept the key: compare the safety number with ${peer} first, in person or on a call.`,
      ),
      h(
        'p',
        { class: 'actions' },
        h(
          'button',
          { type: 'button', class: 'accept-key', onclick: actions.accept },
          changed ? 'Accept the new key' : 'Accept this key',
        ),
        verify,
      ),
    );
  }
  if (known?.state !== 'trusted') return null;
  if (known.pin.rotatedFrom) {
    return h(
      'p',
      { class: 'key-note', role: 'status' },
      `${peer} moved to a new key. The relay's log holds the rotation, signed by the key you had pinned, so nothing else is needed. `,
      h('button', { type: 'button', class: 'link', onclick: actions.dismiss }, 'OK'),
    );
  }
  if (known.firstUse) {
    return h(
      'p',
      { class: 'key-note', role: 'status' },
      `First conversation with ${peer}: their key is now pinned in this browser. `,
      verify,
    );
  }
  return null;
}
