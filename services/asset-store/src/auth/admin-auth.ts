import type { RequestHandler } from 'express';
import { assetErrors } from '../errors.js';
import { BearerTokens } from './bearer.js';

/**
 * Guards every admin route, ahead of any other check: no `admin_token` configured → 403;
 * a missing or wrong `Authorization: Bearer` → 401.
 */
export function adminAuth(adminToken: string | undefined): RequestHandler {
  const tokens = new BearerTokens([adminToken]);
  return (req, _res, next) => {
    if (!tokens.configured) throw assetErrors.adminDisabled();
    if (!tokens.accepts(req)) throw assetErrors.unauthorized();
    next();
  };
}
