import type { Kysely } from 'kysely';
import { readAuthValue, verifyAuthSignature } from '../auth/signed-request.js';
import type { Database } from '../db/database.js';
import { relayErrors } from '../errors.js';
import { parseJsonBody } from '../http/body.js';
import { validate } from '../http/validate.js';
import { findHandle } from '../handles/handle.repository.js';
import { requireValidHandle } from '../handles/handle-rules.js';
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
  body: Buffer | undefined;
}

/** The push subscription rules: who may subscribe which endpoint, and unsubscribe it. */
export class PushService {
  constructor(private readonly deps: PushServiceDeps) {}

  /**
   * Handle valid (400), exists (404), then `X-ID-Auth` (401). The signature covers the body's
   * endpoint, so only the checks that need no body (present, well formed, fresh) come before
   * the body is read (malformed JSON: 400); the signature over `<verb>`, the path and the
   * claimed endpoint is checked right after. Returns the folded handle and the parsed body.
   */
  async #authorise(
    verb: 'subscribe' | 'unsubscribe',
    r: PushRequest,
  ): Promise<{ handle: string; body: unknown }> {
    const { deps } = this;
    const handle = requireValidHandle(r.handle);
    const row = await findHandle(deps.db, handle);
    if (!row) throw relayErrors.unknownHandle();
    const auth = readAuthValue(r.auth, deps.now());
    const body = parseJsonBody(r.body);
    const endpoint = claimedEndpoint(body);
    const lines = (spelled: string) => [verb, `/v1/push/${verb}/${spelled}`, endpoint];
    verifyAuthSignature(auth, row.primary_key, lines(handle), lines(r.handle));
    return { handle, body };
  }

  /** Stores (or re-keys) a subscription after the spec's checks; the endpoint is SSRF-checked. */
  async subscribe(r: PushRequest): Promise<void> {
    const { deps } = this;
    const { handle, body } = await this.#authorise('subscribe', r);
    const subscription = validate(subscribeBody, body);
    const problem = await endpointProblem(subscription.endpoint, deps.allowPrivateEndpoints);
    if (problem) throw relayErrors.unsafeEndpoint(problem);
    await upsertSubscription(deps.db, { handle, ...subscription });
  }

  /** Removes the handle's subscription with that endpoint (idempotent). */
  async unsubscribe(r: PushRequest): Promise<void> {
    const { deps } = this;
    const { handle, body } = await this.#authorise('unsubscribe', r);
    const { endpoint } = validate(unsubscribeBody, body);
    await deleteSubscription(deps.db, handle, endpoint);
  }
}
