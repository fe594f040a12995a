import {
  generateKeyPair,
  keyPairFromSecret,
  primaryOf,
  RelayClientError,
  toHex,
  type RelayClient,
} from '../../../src/client/index.js';
import { BadKeyFile, downloadKeyFile, parseKeyFile } from '../key-file.js';
import type { ClaimedIdentity, Identity, LocalStore } from '../local-store.js';
import { plainWords } from '../relay-api.js';
import { h, say, show } from './dom.js';

/** What the first screens need. */
export interface WelcomeDeps {
  store: LocalStore;
  client: RelayClient;
  /** Called once the key owns a handle. */
  ready: (identity: ClaimedIdentity) => void;
}

/** First screen: create a key pair here, or import the CLI's key file. */
export function showWelcome(deps: WelcomeDeps): void {
  const fileInput = h('input', { type: 'file', id: 'key-file', accept: '.json,application/json' });
  fileInput.addEventListener('change', () => {
    void (async () => {
      const file = fileInput.files?.[0];
      if (!file) return;
      try {
        const keys = parseKeyFile(await file.text());
        await deps.store.saveIdentity({ secretKey: toHex(keys.secretKey) });
        say('Key imported.');
        await showClaim(deps);
      } catch (err) {
        say(err instanceof BadKeyFile ? err.message : plainWords(err, 'Import failed'), 'error');
      }
    })();
  });
  const create = async () => {
    const keys = generateKeyPair();
    await deps.store.saveIdentity({ secretKey: toHex(keys.secretKey) });
    say('A new key was created and kept in this browser.');
    await showClaim(deps);
  };
  show(
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'welcome-title' },
      h('h2', { id: 'welcome-title' }, 'Welcome'),
      h(
        'p',
        {},
        'Your messages are encrypted in this browser with a key only you hold. Start with a key:',
      ),
      h(
        'button',
        { type: 'button', id: 'create-key', onclick: () => void create() },
        'Create a new key',
      ),
      h(
        'p',
        {},
        h('label', { for: 'key-file' }, 'Or import a key file (from the CLI or another browser): '),
        fileInput,
      ),
    ),
  );
}

/** Second screen: the key's handle if it owns one, else a form to claim one. */
export async function showClaim(deps: WelcomeDeps): Promise<void> {
  const identity = await deps.store.identity();
  if (!identity) return showWelcome(deps);
  const keys = keyPairFromSecret(identity.secretKey);
  const primary = primaryOf(keys.publicKey);
  try {
    const record = await deps.client.byPrimary(primary);
    return finish(deps, identity, record.handle, record.fqhn);
  } catch (err) {
    if (!(err instanceof RelayClientError && err.status === 404)) {
      say(plainWords(err, 'Looking up your key'), 'error');
    }
  }
  const input = h('input', {
    id: 'handle',
    name: 'handle',
    required: true,
    autocomplete: 'username',
    autocapitalize: 'none',
    spellcheck: 'false',
    pattern: '[a-z0-9][a-z0-9_\\-]{2,31}',
    'aria-describedby': 'handle-hint',
  });
  const claim = async (event: Event) => {
    event.preventDefault();
    try {
      const server = (await deps.client.health()).server;
      const record = await deps.client.register(server, input.value.trim(), keys);
      say(`You are ${record.fqhn}.`);
      await finish(deps, identity, record.handle, record.fqhn);
    } catch (err) {
      say(plainWords(err, 'Claiming the handle'), 'error');
      input.focus();
    }
  };
  show(
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'claim-title' },
      h('h2', { id: 'claim-title' }, 'Claim a handle'),
      h(
        'p',
        {},
        'People find you by your handle. Your key: ',
        h('code', { class: 'key' }, primary),
      ),
      h(
        'form',
        { id: 'claim-form', onsubmit: (e) => void claim(e) },
        h('label', { for: 'handle' }, 'Handle'),
        input,
        h('p', { id: 'handle-hint', class: 'hint' }, '3 to 32 characters: a-z, 0-9, _ and -.'),
        h('button', { type: 'submit' }, 'Claim'),
      ),
      h(
        'p',
        {},
        h(
          'button',
          { type: 'button', class: 'secondary', onclick: () => downloadKeyFile(keys) },
          'Save a copy of the key file',
        ),
      ),
    ),
  );
  input.focus();
}

async function finish(deps: WelcomeDeps, identity: Identity, handle: string, fqhn: string) {
  const full = { secretKey: identity.secretKey, handle, fqhn };
  await deps.store.saveIdentity(full);
  deps.ready(full);
}
