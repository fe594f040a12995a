import { errors, type AppError } from '@svc/envelope';

/** The one place handle-relay reads PostgreSQL's SQLSTATE codes. */
const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';
const DISK_FULL = '53100';
/** A value the client sent that the column refuses: bad text form, out of range, a check. */
const CLIENT_VALUE = new Set(['22P02', '22003', '23514']);
/** The server ended the session: admin shutdown, crash shutdown, cannot connect now. */
const CONNECTION_LOST = new Set(['57P01', '57P02', '57P03', '08000', '08003', '08006', '08001']);

interface PgLikeError {
  code?: unknown;
  constraint?: unknown;
}

const codeOf = (err: unknown): unknown => (err as PgLikeError | null)?.code;

/** Socket errors of a server that is down, restarting or unreachable. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** node-postgres's own words for a session that died under it (they carry no code). */
const SESSION_DIED =
  /^(Connection terminated|Client has encountered a connection error|Client was closed|timeout exceeded when trying to connect)/;

/**
 * True when the database does not answer now (down, restarting, unreachable, the session
 * lost), as opposed to refusing what was asked: the client should retry later (503).
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const code = codeOf(err);
  if (typeof code === 'string' && (CONNECTION_LOST.has(code) || UNREACHABLE.has(code))) return true;
  return err instanceof Error && SESSION_DIED.test(err.message);
}

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
 * violation is 409, a value the client sent 400, a full disk 507 (logged for the operator), a
 * database that does not answer 503 with `Retry-After`; everything else stays unknown (a 500).
 */
export function fromDatabaseError(err: unknown): AppError | undefined {
  if (isDatabaseUnavailable(err)) return errors.databaseUnavailable();
  const code = codeOf(err);
  if (typeof code !== 'string') return undefined;
  if (code === UNIQUE_VIOLATION) return errors.conflict('already exists');
  if (CLIENT_VALUE.has(code)) return errors.badRequest('invalid value');
  if (code === DISK_FULL) return errors.insufficientStorage();
  return undefined;
}
