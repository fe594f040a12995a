/**
 * The one place the services read PostgreSQL's SQLSTATE codes. Each service translates
 * these into its own error catalogue in its `db/pg-errors.ts`.
 */
const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';
const DISK_FULL = '53100';
/** `lock_timeout` ran out while the statement waited for a lock. */
const LOCK_TIMEOUT = '55P03';
/** A value the column refuses: bad text form, out of range, a failed check. */
const CLIENT_VALUE = new Set(['22P02', '22003', '23514']);
/** The server ended the session: admin shutdown, crash shutdown, cannot connect now. */
const CONNECTION_LOST = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08006']);
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

interface PgLikeError {
  code?: unknown;
  constraint?: unknown;
}

/** The SQLSTATE of a database error; undefined for anything else (a numeric code too). */
export function sqlStateOf(err: unknown): string | undefined {
  if (err === null || typeof err !== 'object') return undefined;
  const { code } = err as PgLikeError;
  return typeof code === 'string' ? code : undefined;
}

/** True for a unique violation, optionally on one named constraint. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  return (
    sqlStateOf(err) === UNIQUE_VIOLATION &&
    (constraint === undefined || (err as PgLikeError).constraint === constraint)
  );
}

/** True for a foreign key violation (a row naming one that does not exist). */
export function isForeignKeyViolation(err: unknown): boolean {
  return sqlStateOf(err) === FOREIGN_KEY_VIOLATION;
}

/** True for a value the column refuses, which the client sent (a 400, not a 500). */
export function isRefusedValue(err: unknown): boolean {
  const code = sqlStateOf(err);
  return code !== undefined && CLIENT_VALUE.has(code);
}

/** True when the server ended or refused the session, so a retry on a new one may work. */
export function isConnectionLost(err: unknown): boolean {
  const code = sqlStateOf(err);
  return code !== undefined && CONNECTION_LOST.has(code);
}

/** True when a lock was not granted within the session's `lock_timeout`: busy, not broken. */
export function isLockTimeout(err: unknown): boolean {
  return sqlStateOf(err) === LOCK_TIMEOUT;
}

/** True when the database is out of disk space. */
export function isDatabaseOutOfSpace(err: unknown): boolean {
  return sqlStateOf(err) === DISK_FULL;
}

/**
 * True when the database does not answer now (down, restarting, unreachable, the session
 * lost), as opposed to refusing what was asked: the client should retry later (503).
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const code = sqlStateOf(err);
  if (code !== undefined && (CONNECTION_LOST.has(code) || UNREACHABLE.has(code))) return true;
  return err instanceof Error && SESSION_DIED.test(err.message);
}
