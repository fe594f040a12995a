import { z } from 'zod';
import { isStorableText } from '../http/storable-text.js';

const key = (name: string) =>
  z
    .string({ error: `${name} must be a string` })
    .min(1, `${name} must not be empty`)
    .max(1024, `${name} is too long`)
    .regex(/^[A-Za-z0-9+/_-]+={0,2}$/, `${name} must be base64url`);

/**
 * Counted in UTF-8 bytes, not characters: the endpoint is the table's primary key, and a
 * B-tree entry holds at most about 2,700 bytes (2,048 CJK characters are 6,144).
 */
const MAX_ENDPOINT_BYTES = 2048;

const endpoint = z
  .string({ error: 'endpoint must be a string' })
  .min(1, 'endpoint must not be empty')
  .refine((s) => Buffer.byteLength(s, 'utf8') <= MAX_ENDPOINT_BYTES, 'endpoint is too long')
  .refine(isStorableText, 'endpoint must not contain NUL characters or lone surrogates');

/** Lifts the browser shape's `keys.{p256dh,auth}` to the top level; leaves the flat shape be. */
function flatten(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const { keys, ...rest } = body as Record<string, unknown>;
  if (!keys || typeof keys !== 'object') return body;
  const k = keys as Record<string, unknown>;
  return { ...rest, p256dh: k.p256dh, auth: k.auth };
}

/**
 * A subscription in either accepted shape: flat `{endpoint, p256dh, auth}` or the
 * browser's `PushSubscription.toJSON()` `{endpoint, keys: {p256dh, auth}}`.
 */
export const subscribeBody = z.preprocess(
  flatten,
  z.object(
    { endpoint, p256dh: key('p256dh'), auth: key('auth') },
    { error: 'body must be {endpoint, p256dh, auth} or {endpoint, keys: {p256dh, auth}}' },
  ),
);

/** `{endpoint}` of an unsubscribe. */
export const unsubscribeBody = z.object(
  { endpoint },
  { error: 'body must be a JSON object with endpoint' },
);

/** The endpoint named in a body, for the signature check that precedes validation. */
export function claimedEndpoint(body: unknown): string {
  const e = (body as { endpoint?: unknown } | null)?.endpoint;
  return typeof e === 'string' ? e : '';
}
