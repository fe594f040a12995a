import { primaryOf, safetyNumber } from '../../../src/client/index.js';
import type { Session } from '../session.js';
import { h, show } from './dom.js';
import { keyNotice } from './key-notice.js';
import { qrCode } from './qr-code.js';

/**
 * A conversation's Verify screen: the safety number of the two keys (the CLI's `safety`
 * prints the same), as digits and as a QR code, and what was checked about the peer's key.
 */
export async function showVerify(session: Session, peer: string): Promise<void> {
  const back = h(
    'a',
    { href: `#/c/${encodeURIComponent(peer)}`, class: 'back-link' },
    '← Back to the conversation',
  );
  show(h('section', { class: 'card' }, back, h('p', {}, `Checking the key of ${peer}…`)));
  const known = await session.trust.check(peer);
  // The person may have gone elsewhere meanwhile.
  if (location.hash !== `#/c/${encodeURIComponent(peer)}/verify`) return;
  const draw = () => void showVerify(session, peer);
  if (known.state === 'unknown') {
    show(h('section', { class: 'card' }, back, h('p', { role: 'alert' }, known.reason)));
    return;
  }
  const own = primaryOf(session.keys.publicKey);
  const number = safetyNumber(own, known.key);
  const groups = number.split(' ');
  // Three rows of four groups, read like a phone number; the text is the CLI's, spaces and all.
  const rows = [0, 4, 8].map((at) =>
    h('span', { class: 'row' }, groups.slice(at, at + 4).join(' ')),
  );
  const row = (name: string, value: Node | string) => [h('dt', {}, name), h('dd', {}, value)];
  const notice = keyNotice(
    peer,
    known,
    {
      accept: () => void session.trust.accept(peer).then(draw),
      dismiss: () => void session.trust.dismissNote(peer).then(draw),
    },
    { withVerifyLink: false },
  );
  const checked =
    known.state === 'trusted' && known.logSize !== undefined
      ? `its signature chain, and each link's inclusion in the relay's signed log (${known.logSize} entries), consistent with the log this browser saw before`
      : 'not verified: accepted by you';
  show(
    h(
      'section',
      { class: 'card verify-view', 'aria-labelledby': 'verify-title' },
      back,
      h('h2', { id: 'verify-title' }, `Verify ${known.fqhn}`),
      notice,
      h(
        'p',
        {},
        `Compare this safety number with ${peer}, in person or on a call: their app shows it under Verify, the command line with `,
        h('code', {}, 'handle-relay safety'),
        '. If it is the same on both sides, your messages are encrypted to the keys you both hold, and no one in between can read them.',
      ),
      h('h3', { id: 'safety-title' }, 'Safety number'),
      h(
        'p',
        { class: 'safety', id: 'safety-number' },
        ...rows.flatMap((r, i) => (i === 0 ? [r] : [' ', r])),
      ),
      h(
        'figure',
        { class: 'qr-figure' },
        qrCode(number, 'QR code of the safety number'),
        h('figcaption', {}, 'Or let their device scan this code: it holds the same number.'),
      ),
      h(
        'dl',
        { class: 'record' },
        row(`Key of ${peer}`, h('code', { class: 'key', id: 'peer-key' }, known.key)),
        row('Your key', h('code', { class: 'key' }, own)),
        known.state === 'trusted'
          ? row('Pinned since', new Date(known.pin.at).toLocaleString())
          : row('Pinned', 'not this key'),
        known.state === 'trusted' ? row('Checked', checked) : null,
      ),
    ),
  );
}
