import {
  isDatabaseOutOfSpace,
  isDatabaseUnavailable,
  isLockTimeout,
  isRefusedValue,
  isUniqueViolation,
} from '@svc/database';
import type { AppError } from '@svc/envelope';
import { assetErrors } from '../errors.js';

/**
 * A database error as the client should see it, for the error handler: a database that
 * does not answer, or a lock it did not grant in time, is 503 with `Retry-After`, a unique
 * violation 409, a value the client sent 400, a full disk 507 (still logged for the
 * operator); everything else stays unknown (a 500). The SQLSTATE codes are read in `@svc/database`.
 */
export function fromDatabaseError(err: unknown): AppError | undefined {
  if (isDatabaseUnavailable(err) || isLockTimeout(err)) return assetErrors.databaseUnavailable();
  if (isUniqueViolation(err)) return assetErrors.alreadyExists();
  if (isRefusedValue(err)) return assetErrors.invalidValue();
  if (isDatabaseOutOfSpace(err)) return assetErrors.outOfSpace();
  return undefined;
}
