// The service worker: keeps the app's shell for offline starts, shows the relay's
// metadata-only push and opens the conversation on a click. It never sees message text:
// the push names only the recipient and a seq, and the API is never cached.
declare const self: ServiceWorkerGlobalScope;

/** The app shell: what it takes to start the app with no network (messages are in IndexedDB). */
const SHELL_CACHE = 'handle-relay-shell-v1';
const SHELL = [
  '/index.html',
  '/app.js',
  '/styles.css',
  '/manifest.webmanifest',
  '/icon-192.png',
  '/icon-512.png',
  '/icon-maskable-512.png',
  '/apple-touch-icon.png',
];

interface PushPayload {
  type?: unknown;
  to?: unknown;
  seq?: unknown;
}

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(SHELL_CACHE);
      // One missing file must not keep the worker (and push) from installing.
      await Promise.all(SHELL.map((file) => cache.add(file).catch(() => undefined)));
      await self.skipWaiting();
    })(),
  );
});

/**
 * The shell's files and every page are fetched from the network first (an update shows at
 * once) and kept; with no network they come from the cache, a page as `index.html` (the
 * app routes itself). Anything else (the API, streams, other origins) is left alone.
 */
self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith('/v1/') || url.pathname.startsWith('/.well-known/')) return;
  const page = request.mode === 'navigate';
  if (!page && !SHELL.includes(url.pathname)) return;
  event.respondWith(
    (async () => {
      const cache = await caches.open(SHELL_CACHE);
      const key = page ? '/index.html' : url.pathname;
      try {
        const response = await fetch(request);
        if (response.ok && (!page || url.pathname === '/' || url.pathname === '/index.html')) {
          await cache.put(key, response.clone());
        }
        return response;
      } catch (err) {
        const kept = await cache.match(key);
        if (kept) return kept;
        throw err;
      }
    })(),
  );
});
self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener('push', (event) => {
  let payload: PushPayload = {};
  try {
    payload = (event.data?.json() ?? {}) as PushPayload;
  } catch {
    // Not JSON: still say that something arrived.
  }
  const to = typeof payload.to === 'string' ? payload.to : 'you';
  const seq = typeof payload.seq === 'number' ? payload.seq : undefined;
  event.waitUntil(
    self.registration.showNotification(`New message for ${to}`, {
      body: 'Open Handle Relay to read it.',
      tag: 'handle-relay-message',
      data: { seq },
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const { seq } = (event.notification.data ?? {}) as { seq?: number };
  const target = seq === undefined ? '/#/' : `/#/seq/${seq}`;
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
      const open = windows[0];
      if (open) {
        open.postMessage({ open: target });
        await open.focus();
      } else {
        await self.clients.openWindow(target);
      }
    })(),
  );
});

export {};
