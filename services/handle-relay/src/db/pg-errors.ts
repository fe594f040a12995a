import {
  isDatabaseOutOfSpace,
  isDatabaseUnavailable,
  isRefusedValue,
  isUniqueViolation,
} from '@svc/database';
import { errors, type AppError } from '@svc/envelope';

/**
 * A database error as the client should see it, for the error middleware: a database that
 * does not answer is 503 with `Retry-After`, a unique violation 409, a value the client sent
 * 400, a full disk 507 (logged for the operator); everything else stays unknown (a 500).
 * The SQLSTATE codes are read in `@svc/database`.
 */
export function fromDatabaseError(err: unknown): AppError | undefined {
  if (isDatabaseUnavailable(err)) return errors.databaseUnavailable();
  if (isUniqueViolation(err)) return errors.conflict('already exists');
  if (isRefusedValue(err)) return errors.badRequest('invalid value');
  if (isDatabaseOutOfSpace(err)) return errors.insufficientStorage();
  return undefined;
}
