import type { Kysely } from 'kysely';
import { verifySignedRequest } from '../auth/signed-request.js';
import type { Database } from '../db/database.js';
import { relayErrors } from '../errors.js';
import { parseJsonBody } from '../http/body.js';
import { findHandle } from '../handles/handle.repository.js';
import { requireValidHandle } from '../handles/handle-rules.js';
import { firstIssue } from '../messages/message.schemas.js';
import { endpointProblem } from './endpoint-guard.js';
import { deleteSubscription, upsertSubscription } from './push.repository.js';
import { claimedEndpoint, subscribeBody, unsubscribeBody } from './push.schemas.js';

/** What the subscription rules need. */
export interface PushServiceDeps {
  db: Kysely<Database>;
  allowPrivateEndpoints: boolean;
  now: () => number;
}

/** A subscribe or unsubscribe as it arrived (body as raw bytes). */
export interface PushRequest {
  handle: string;
  auth: string | undefined;
  body: unknown;
}

/**
 * Handle valid (400), exists (404), `X-ID-Auth` over `<verb>`, the path and the claimed
 * endpoint (401; the body is read only now, malformed JSON being a 400). Returns the
 * folded handle and the parsed body.
 */
async function authorise(
  deps: PushServiceDeps,
  verb: 'subscribe' | 'unsubscribe',
  r: PushRequest,
): Promise<{ handle: string; body: unknown }> {
  const handle = requireValidHandle(r.handle);
  const row = await findHandle(deps.db, handle);
  if (!row) throw relayErrors.unknownHandle();
  // The signature covers the body's endpoint, so the body is read before it is checked;
  // a missing header is a 401 whatever the body holds.
  if (r.auth === undefined) throw relayErrors.missingAuth();
  const body = parseJsonBody(r.body);
  verifySignedRequest({
    value: r.auth,
    primary: row.primary_key,
    lines: [verb, `/v1/push/${verb}/${handle}`, claimedEndpoint(body)],
    now: deps.now(),
  });
  return { handle, body };
}

/** Stores (or re-keys) a subscription after the spec's checks; the endpoint is SSRF-checked. */
export async function subscribe(deps: PushServiceDeps, r: PushRequest): Promise<void> {
  const { handle, body } = await authorise(deps, 'subscribe', r);
  const parsed = subscribeBody.safeParse(body);
  if (!parsed.success) throw relayErrors.badRequest(firstIssue(parsed.error));
  const problem = await endpointProblem(parsed.data.endpoint, deps.allowPrivateEndpoints);
  if (problem) throw relayErrors.badRequest(problem);
  await upsertSubscription(deps.db, { handle, ...parsed.data });
}

/** Removes the handle's subscription with that endpoint (idempotent). */
export async function unsubscribe(deps: PushServiceDeps, r: PushRequest): Promise<void> {
  const { handle, body } = await authorise(deps, 'unsubscribe', r);
  const parsed = unsubscribeBody.safeParse(body);
  if (!parsed.success) throw relayErrors.badRequest(firstIssue(parsed.error));
  await deleteSubscription(deps.db, handle, parsed.data.endpoint);
}
