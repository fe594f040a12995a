import { primaryOf } from '../../../src/client/index.js';
import { downloadKeyFile } from '../key-file.js';
import { enablePush } from '../push.js';
import { plainWords } from '../relay-api.js';
import type { Session } from '../session.js';
import { h, say, show, timeOf } from './dom.js';

/** What the profile screen does besides editing: forget the key on this device. */
export interface ProfileDeps {
  session: Session;
  forget: () => Promise<void>;
}

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
  const row = (name: string, value: Node | string) => [h('dt', {}, name), h('dd', {}, value)];
  show(
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'profile-title' },
      h('h2', { id: 'profile-title' }, 'Your record'),
      h(
        'dl',
        { class: 'record' },
        row('Handle', record.fqhn),
        row('Key', h('code', { class: 'key' }, primaryOf(session.keys.publicKey))),
        row('Registered', timeOf(record.registered_at)),
        row('Signature chain', record.sigchain_url),
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
