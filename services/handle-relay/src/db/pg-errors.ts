import {
  isDatabaseOutOfSpace,
  isDatabaseUnavailable,
  isRefusedValue,
  isUniqueViolation,
} from '@svc/database';
import type { AppError } from '@svc/envelope';
import { relayErrors } from '../errors.js';

/**
 * A database error as the client should see it, for the error middleware: a database that
 * does not answer is 503 with `Retry-After`, a unique violation 409, a value the client sent
 * 400, a full disk 507 (logged for the operator); everything else stays unknown (a 500).
 * The SQLSTATE codes are read in `@svc/database`.
 */
export function fromDatabaseError(err: unknown): AppError | undefined {
  if (isDatabaseUnavailable(err)) return relayErrors.databaseUnavailable();
  if (isUniqueViolation(err)) return relayErrors.alreadyExists();
  if (isRefusedValue(err)) return relayErrors.invalidValue();
  if (isDatabaseOutOfSpace(err)) return relayErrors.insufficientStorage();
  return undefined;
}
