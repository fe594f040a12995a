import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { assetErrors } from '../errors.js';

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Guards every admin route, ahead of any other check: no `admin_token` configured → 403;
 * a missing or wrong `Authorization: Bearer` → 401. Both sides are hashed first so the
 * comparison is constant-time whatever the lengths.
 */
export function adminAuth(adminToken: string | undefined): RequestHandler {
  const expected = adminToken === undefined ? undefined : digest(adminToken);
  return (req, _res, next) => {
    if (!expected) throw assetErrors.adminDisabled();
    const match = /^Bearer (.+)$/i.exec(req.get('authorization') ?? '');
    if (!match || !timingSafeEqual(digest(match[1]!), expected)) throw assetErrors.unauthorized();
    next();
  };
}
