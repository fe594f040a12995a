import { Agent, request } from 'undici';
import webpush from 'web-push';
import { guardedLookup } from './endpoint-guard.js';
import type { PushOutcome, PushSender, PushTarget } from './push-sender.port.js';
import type { VapidKeys } from './vapid-keys.js';

/** Contract: Web Push requests carry `TTL: 86400`. */
export const PUSH_TTL_SECONDS = 86_400;
const TIMEOUT_MS = 10_000;

/** What the sender needs. */
export interface WebPushSenderOptions {
  keys: VapidKeys;
  subject: string;
  /** Lets delivery reach private and loopback hosts (tests, closed networks). */
  allowPrivate: boolean;
}

/**
 * The Web Push adapter: web-push builds the RFC 8291 (aes128gcm) body and the RFC 8292
 * VAPID header; undici sends it over a pooled agent with timeouts. Unless private
 * endpoints are allowed, the agent's DNS lookup refuses private answers at connect time.
 */
export function createWebPushSender(options: WebPushSenderOptions): PushSender {
  const agent = new Agent({
    connections: 16,
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
    connect: {
      timeout: TIMEOUT_MS,
      ...(options.allowPrivate ? {} : { lookup: guardedLookup }),
    },
  });
  const vapidDetails = {
    subject: options.subject,
    publicKey: options.keys.publicKey,
    privateKey: options.keys.privateKey,
  };
  return {
    async send(target: PushTarget, payload: string): Promise<PushOutcome> {
      try {
        const details = webpush.generateRequestDetails(
          { endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } },
          payload,
          { vapidDetails, TTL: PUSH_TTL_SECONDS, contentEncoding: 'aes128gcm' },
        );
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(details.headers)) {
          headers[name] = String(value);
        }
        const res = await request(details.endpoint, {
          method: 'POST',
          headers,
          body: details.body ?? undefined,
          dispatcher: agent,
        });
        await res.body.dump();
        return { status: res.statusCode };
      } catch (err) {
        return { error: err instanceof Error ? err : new Error(String(err)) };
      }
    },
    // destroy, not close: close would wait for every running request (up to the timeouts).
    close: () => agent.destroy(),
  };
}
