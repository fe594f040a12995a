import { errors, type AppError } from '@svc/envelope';

/** The one place handle-relay reads PostgreSQL's SQLSTATE codes. */
const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';
const DISK_FULL = '53100';
/** A value the client sent that the column refuses: bad text form, out of range, a check. */
const CLIENT_VALUE = new Set(['22P02', '22003', '23514']);

interface PgLikeError {
  code?: unknown;
  constraint?: unknown;
}

const codeOf = (err: unknown): unknown => (err as PgLikeError | null)?.code;

/** True for a unique violation, optionally on one named constraint. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as PgLikeError | null;
  return (
    !!e &&
    typeof e === 'object' &&
    e.code === UNIQUE_VIOLATION &&
    (constraint === undefined || e.constraint === constraint)
  );
}

/** True for a foreign key violation (a row naming one that does not exist). */
export function isForeignKeyViolation(err: unknown): boolean {
  return codeOf(err) === FOREIGN_KEY_VIOLATION;
}

/**
 * A database error as the client should see it, for the error middleware: a unique
 * violation is 409, a value the client sent 400, a full disk 507 (logged for the operator);
 * everything else stays unknown (a 500).
 */
export function fromDatabaseError(err: unknown): AppError | undefined {
  const code = codeOf(err);
  if (typeof code !== 'string') return undefined;
  if (code === UNIQUE_VIOLATION) return errors.conflict('already exists');
  if (CLIENT_VALUE.has(code)) return errors.badRequest('invalid value');
  if (code === DISK_FULL) return errors.insufficientStorage();
  return undefined;
}
