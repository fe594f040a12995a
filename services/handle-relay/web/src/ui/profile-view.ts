import { primaryOf, toHex } from '../../../src/client/index.js';
import { downloadKeyFile } from '../key-file.js';
import { enablePush } from '../push.js';
import { plainWords } from '../relay-api.js';
import type { Session } from '../session.js';
import { h, say, show, timeOf } from './dom.js';

/** What the profile screen does besides editing: rotate the key, forget it on this device. */
export interface ProfileDeps {
  session: Session;
  /** Moves the handle to a new key, then starts the app again with it. */
  rotate: () => Promise<void>;
  forget: () => Promise<void>;
}

/** Where the profile finds, after the reload that follows a rotation, what to say about it. */
export const ROTATED_NOTICE = 'handle-relay:rotated';

/** The handle's public record, its proofs (editable), the key file and notifications. */
export async function showProfile(deps: ProfileDeps): Promise<void> {
  const { session } = deps;
  let record;
  try {
    record = await session.client.lookup(session.handle);
  } catch (err) {
    say(plainWords(err, 'Loading your record'), 'error');
    return;
  }
  const proofs = h('textarea', { id: 'proofs', rows: '4', 'aria-describedby': 'proofs-hint' });
  proofs.value = record.proofs.join('\n');
  const saveProofs = async (event: Event) => {
    event.preventDefault();
    const list = proofs.value
      .split('\n')
      .map((p) => p.trim())
      .filter(Boolean);
    try {
      await session.client.setProofs(session.handle, list, session.keys);
      say(`Proofs saved (${list.length}).`);
    } catch (err) {
      say(plainWords(err, 'Saving the proofs'), 'error');
    }
  };
  const notify = async () => {
    try {
      await enablePush(session.handle, session.keys);
      say('Notifications are on for this browser.');
    } catch (err) {
      say(plainWords(err, 'Turning on notifications'), 'error');
    }
  };
  const forget = async () => {
    if (
      !confirm(
        'Forget this key and its messages in this browser? Without a saved key file the handle is lost.',
      )
    )
      return;
    await deps.forget();
  };
  const rotate = async () => {
    if (
      !confirm(
        'Move your handle to a new key? The relay logs the change, signed by both keys. Key files exported before stop working: export the new one afterwards.',
      )
    )
      return;
    try {
      await deps.rotate();
    } catch (err) {
      say(plainWords(err, 'Rotating your key'), 'error');
    }
  };
  const rotated = sessionStorage.getItem(ROTATED_NOTICE);
  sessionStorage.removeItem(ROTATED_NOTICE);
  const identity = session.identity;
  // The chain is served by this relay (its record's sigchain_url names the configured
  // sig_server_url, which may be a server that does not exist).
  const chainUrl = `${location.origin}/v1/sigchains/ed25519/${toHex(session.keys.publicKey)}`;
  const row = (name: string, value: Node | string) => [h('dt', {}, name), h('dd', {}, value)];
  show(
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'profile-title' },
      // First: after the reload that follows a rotation, this is what the person looks for.
      rotated ? h('p', { class: 'notice', role: 'status', id: 'rotated' }, rotated) : null,
      h('h2', { id: 'profile-title' }, 'Your record'),
      h(
        'dl',
        { class: 'record' },
        row('Handle', record.fqhn),
        row('Key', h('code', { class: 'key' }, primaryOf(session.keys.publicKey))),
        row('Registered', timeOf(record.registered_at)),
        row('Signature chain', h('a', { href: chainUrl, id: 'sigchain-link' }, chainUrl)),
      ),
      h(
        'form',
        { onsubmit: (e) => void saveProofs(e) },
        h('label', { for: 'proofs' }, 'Proofs'),
        proofs,
        h(
          'p',
          { id: 'proofs-hint', class: 'hint' },
          'One per line, as channel:identifier (for example github:alice).',
        ),
        h('button', { type: 'submit' }, 'Save proofs'),
      ),
      h('h2', {}, 'Key rotation'),
      h(
        'p',
        {},
        'Move your handle to a new key if this one may have leaked, or to retire it. The rotation is signed by both keys and kept in the relay’s log, so the people you write to see it explained, not as a warning.',
      ),
      identity.nextSecretKey
        ? h(
            'p',
            { class: 'hint' },
            'A rotation started here was not acknowledged by the relay yet: rotating again finishes it with the same new key.',
          )
        : null,
      identity.previousSecretKeys?.length
        ? h(
            'p',
            { class: 'hint' },
            `This browser keeps ${identity.previousSecretKeys.length === 1 ? 'your previous key' : `your ${identity.previousSecretKeys.length} previous keys`} only to open messages sealed to ${identity.previousSecretKeys.length === 1 ? 'it' : 'them'} before.`,
          )
        : null,
      h(
        'p',
        { class: 'actions' },
        h('button', { type: 'button', onclick: () => void rotate() }, 'Rotate key'),
      ),
      h('h2', {}, 'This browser'),
      h(
        'p',
        { class: 'actions' },
        h(
          'button',
          { type: 'button', onclick: () => downloadKeyFile(session.keys) },
          'Export key file',
        ),
        h('button', { type: 'button', onclick: () => void notify() }, 'Turn on notifications'),
        h(
          'button',
          { type: 'button', class: 'danger', onclick: () => void forget() },
          'Forget this key',
        ),
      ),
    ),
  );
}
