import { keyPairFromSecret, primaryOf } from '../../src/client/index.js';
import { InboxSync, type SyncStatus } from './inbox-sync.js';
import { LocalStore, type ClaimedIdentity } from './local-store.js';
import { registerWorker } from './push.js';
import { plainWords, relayClient } from './relay-api.js';
import { Session } from './session.js';
import { ChatView } from './ui/chat-view.js';
import { say, show } from './ui/dom.js';
import { rotateKey } from './rotation.js';
import { ROTATED_NOTICE, showProfile } from './ui/profile-view.js';
import { showVerify } from './ui/verify-view.js';
import { showClaim, showWelcome } from './ui/welcome-view.js';

const client = relayClient();

const STATUS_WORDS: Record<SyncStatus, string> = {
  connecting: 'Connecting to the relay…',
  live: '',
  offline: 'The relay cannot be reached. Retrying…',
};

/** The signed-in app: sync, routes, and a view that follows the session. */
async function startApp(store: LocalStore, identity: ClaimedIdentity): Promise<void> {
  const session = await Session.open(identity, client, store);
  document.getElementById('who')!.textContent = identity.fqhn;
  document.getElementById('nav')!.hidden = false;
  document.body.dataset.sync = 'connecting';
  const sync = new InboxSync({
    client,
    handle: identity.handle,
    keys: session.keys,
    since: session.lastReceivedSeq(),
    onMessages: (messages) => session.receive(messages),
    onStatus: (status, error) => {
      document.body.dataset.sync = status;
      if (status === 'offline' && error !== undefined && !(error instanceof TypeError)) {
        say(plainWords(error, 'Receiving'), 'error');
      } else {
        say(STATUS_WORDS[status], status === 'offline' ? 'error' : 'info');
      }
    },
  });

  let chat: ChatView | undefined;
  let pending = false;
  session.onChange(() => {
    // Many messages in one burst draw once.
    if (pending || !chat) return;
    pending = true;
    setTimeout(() => {
      pending = false;
      chat?.render();
      resolveSeqRoute();
    });
  });

  const resolveSeqRoute = () => {
    const seq = /^#\/seq\/(\d+)$/.exec(location.hash)?.[1];
    const peer = seq === undefined ? undefined : session.peerOfSeq(Number(seq));
    if (peer) location.replace(`#/c/${encodeURIComponent(peer)}`);
  };

  const route = () => {
    const hash = location.hash;
    chat = undefined;
    if (hash === '#/profile') {
      void session.view(undefined);
      void showProfile({
        session,
        rotate: async () => {
          const rotated = await rotateKey(client, store);
          // The inbox, its stream and every signature use the key: start again with the new one.
          sync.stop();
          sessionStorage.setItem(
            ROTATED_NOTICE,
            `Your handle now uses a new key, ${primaryOf(keyPairFromSecret(rotated.secretKey).publicKey)}. Export the new key file: files exported before no longer work.`,
          );
          location.reload();
        },
        forget: async () => {
          sync.stop();
          await store.forget();
          location.hash = '';
          location.reload();
        },
      });
      return;
    }
    const verify = /^#\/c\/([^/]+)\/verify$/.exec(hash)?.[1];
    if (verify !== undefined) {
      void session.view(undefined);
      void showVerify(session, decodeURIComponent(verify));
      return;
    }
    const match = /^#\/c\/(.+)$/.exec(hash)?.[1];
    const peer = match === undefined ? undefined : decodeURIComponent(match);
    // Viewing first: the thread on screen is drawn as read.
    void session.view(peer);
    chat = new ChatView(session, peer);
    show(chat.element);
    resolveSeqRoute();
  };
  addEventListener('hashchange', route);
  // Messages that came while the page was hidden are read once it shows their thread.
  document.addEventListener('visibilitychange', () => {
    const peer = /^#\/c\/([^/]+)$/.exec(location.hash)?.[1];
    if (document.visibilityState === 'visible' && peer) {
      void session.markRead(decodeURIComponent(peer));
    }
  });
  // A notification's click, relayed by the service worker to an open window.
  navigator.serviceWorker?.addEventListener('message', (event: MessageEvent<{ open?: string }>) => {
    if (typeof event.data?.open === 'string') location.hash = event.data.open.replace(/^\//, '');
  });
  route();
  sync.start();
  document.body.dataset.ready = 'true';
}

async function boot(): Promise<void> {
  // The worker (offline shell, notifications) registers once the page has loaded, so its
  // caching of the shell does not compete with the first screen.
  const register = () => void registerWorker().catch(() => undefined);
  if (document.readyState === 'complete') register();
  else addEventListener('load', register, { once: true });
  const store = await LocalStore.open();
  const identity = await store.identity();
  const ready = (full: ClaimedIdentity) => void startApp(store, full);
  if (identity?.handle && identity.fqhn) {
    return startApp(store, { ...identity, handle: identity.handle, fqhn: identity.fqhn });
  }
  document.body.dataset.ready = 'true';
  if (identity) {
    document.getElementById('who')!.textContent = primaryOf(
      keyPairFromSecret(identity.secretKey).publicKey,
    );
    return showClaim({ store, client, ready });
  }
  showWelcome({ store, client, ready });
}

boot().catch((err: unknown) => {
  say(plainWords(err, 'Starting'), 'error');
  show();
});
