// The service worker: shows the relay's metadata-only push and opens the conversation on a
// click. It never sees message text: the push names only the recipient and a seq.
declare const self: ServiceWorkerGlobalScope;

interface PushPayload {
  type?: unknown;
  to?: unknown;
  seq?: unknown;
}

self.addEventListener('install', () => {
  void self.skipWaiting();
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
