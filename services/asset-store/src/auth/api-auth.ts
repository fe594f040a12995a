import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { assetErrors } from '../errors.js';
import { BearerTokens } from './bearer.js';

/**
 * `api_token` (contract, "Additions"): unset, the data endpoints stay open as the spec has
 * them; set, each needs `Authorization: Bearer` with it or with the admin token.
 */
export class ApiAuth {
  readonly #tokens: BearerTokens | undefined;

  constructor(apiToken: string | undefined, adminToken: string | undefined) {
    this.#tokens = apiToken === undefined ? undefined : new BearerTokens([apiToken, adminToken]);
  }

  /** Whether the request may use the data endpoints. */
  allows(req: IncomingMessage): boolean {
    return this.#tokens === undefined || this.#tokens.accepts(req);
  }

  /** The Express guard: 401 with `WWW-Authenticate: Bearer` in the envelope. */
  middleware(): RequestHandler {
    return (req, _res, next) => {
      if (!this.allows(req)) throw assetErrors.apiUnauthorized();
      next();
    };
  }
}
