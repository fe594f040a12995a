/** An error the client caused or may see: a stable code, an HTTP status and a safe message. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

/** The codes shared by both services' catalogues. */
export const errors = {
  badRequest: (message: string) => new AppError(400, 'bad_request', message),
  unauthorized: (message: string) => new AppError(401, 'unauthorized', message),
  forbidden: (message: string) => new AppError(403, 'forbidden', message),
  notFound: (message = 'not found') => new AppError(404, 'not_found', message),
  methodNotAllowed: (allowed: readonly string[]) =>
    new AppError(405, 'method_not_allowed', 'method not allowed', { Allow: allowed.join(', ') }),
  conflict: (message: string) => new AppError(409, 'conflict', message),
  payloadTooLarge: (message = 'payload too large') =>
    new AppError(413, 'payload_too_large', message),
  tooManyRequests: (retryAfterSeconds: number) =>
    new AppError(429, 'rate_limited', 'too many requests', {
      'Retry-After': String(retryAfterSeconds),
    }),
  internal: (message = 'internal error') => new AppError(500, 'internal', message),
  notImplemented: (message: string) => new AppError(501, 'not_implemented', message),
  unavailable: (message: string) => new AppError(503, 'unavailable', message),
  insufficientStorage: () =>
    new AppError(
      507,
      'insufficient_storage',
      'insufficient storage: the server is out of disk space',
    ),
};

/**
 * The disk (or the user's quota) is full, in the file system's words or the database's
 * (SQLSTATE 53100). Not the client's doing, but not a fault it should read as one either:
 * the same request can succeed once space is freed.
 */
export function isOutOfSpace(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' || code === '53100';
}

interface PgLikeError {
  code?: unknown;
  constraint?: unknown;
}

/** True for a Postgres unique violation (23505), optionally on one named constraint. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as PgLikeError | null;
  return (
    !!e &&
    typeof e === 'object' &&
    e.code === '23505' &&
    (constraint === undefined || e.constraint === constraint)
  );
}

/**
 * Turns a Postgres error that the client caused into an AppError; everything else stays
 * unknown (a 500). The one place database error codes are interpreted.
 */
export function fromDatabaseError(err: unknown): AppError | undefined {
  const code = (err as PgLikeError | null)?.code;
  if (typeof code !== 'string') return undefined;
  if (code === '23505') return errors.conflict('already exists');
  if (code === '22P02' || code === '22003' || code === '23514') {
    return errors.badRequest('invalid value');
  }
  return undefined;
}
