import { fromBase64Url, type KeyPair } from '../../src/client/index.js';
import { subscribePush, vapidPublicKey } from './relay-api.js';

/** Registers the service worker (notifications, and a click that opens the conversation). */
export async function registerWorker(): Promise<ServiceWorkerRegistration | undefined> {
  if (!('serviceWorker' in navigator)) return undefined;
  return navigator.serviceWorker.register('/sw.js', { scope: '/' });
}

/**
 * Asks for permission, subscribes with the relay's VAPID key and hands the subscription
 * to the relay. The relay's push says only "a message for <handle>": no text, no sender.
 */
export async function enablePush(handle: string, keys: KeyPair): Promise<void> {
  if (!('serviceWorker' in navigator) || !('PushManager' in window)) {
    throw new Error('this browser has no Web Push');
  }
  if ((await Notification.requestPermission()) !== 'granted') {
    throw new Error('notifications were not allowed');
  }
  await registerWorker();
  const registration = await navigator.serviceWorker.ready;
  const key = fromBase64Url(await vapidPublicKey());
  const subscription = await registration.pushManager.subscribe({
    userVisibleOnly: true,
    applicationServerKey: key.buffer.slice(
      key.byteOffset,
      key.byteOffset + key.byteLength,
    ) as ArrayBuffer,
  });
  await subscribePush(handle, keys, subscription.toJSON());
}
