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

/** What a 503 for a database outage asks the client to wait: a restart takes seconds. */
const DATABASE_RETRY_AFTER_SECONDS = 5;

/** The codes shared by both services' catalogues. */
export const errors = {
  badRequest: (message: string) => new AppError(400, 'bad_request', message),
  unauthorized: (message: string) => new AppError(401, 'unauthorized', message),
  forbidden: (message: string) => new AppError(403, 'forbidden', message),
  notFound: (message = 'not found') => new AppError(404, 'not_found', message),
  /** 404 for a path no route answers. */
  noSuchRoute: () => new AppError(404, 'not_found', 'no such route'),
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
  /** The database does not answer now (down, restarting, unreachable): a retry may work. */
  databaseUnavailable: () =>
    new AppError(503, 'unavailable', 'the database is unavailable: try again shortly', {
      'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS),
    }),
  /** A text field (or the body) whose bytes are not UTF-8. */
  invalidUtf8: (field: string) =>
    new AppError(400, 'bad_request', `invalid ${field}: not valid UTF-8`),
  /** The body is not the JSON the route reads. */
  malformedJson: () => new AppError(400, 'bad_request', 'malformed JSON body'),
  /** The body is larger than the route accepts. */
  bodyTooLarge: () => new AppError(413, 'payload_too_large', 'request body too large'),
  /** A `Content-Encoding` or charset the server cannot read. */
  unsupportedBodyEncoding: () =>
    new AppError(415, 'unsupported_media_type', 'unsupported body encoding'),
  /** The client went away before its body arrived. */
  requestAborted: () => new AppError(400, 'bad_request', 'request aborted'),
  /** The path holds a percent-encoding that decodes to nothing. */
  malformedPathEncoding: () =>
    new AppError(400, 'bad_request', 'malformed percent-encoding in the path'),
  /** Node's HTTP parser refused the request's headers as too large. */
  headersTooLarge: () => new AppError(431, 'headers_too_large', 'request headers too large'),
  /** Node's HTTP parser refused a chunked body's extensions as too large. */
  chunkExtensionsTooLarge: () =>
    new AppError(413, 'payload_too_large', 'chunk extensions too large'),
  /** The request did not arrive within the server's request timeout. */
  requestTimeout: () => new AppError(408, 'request_timeout', 'request not received in time'),
  /** An `Expect` header other than `100-continue`. */
  expectationFailed: () =>
    new AppError(417, 'expectation_failed', 'only "Expect: 100-continue" is supported'),
  /** Node's HTTP parser could not read the request at all. */
  malformedRequest: () => new AppError(400, 'bad_request', 'malformed HTTP request'),
  insufficientStorage: () =>
    new AppError(
      507,
      'insufficient_storage',
      'insufficient storage: the server is out of disk space',
    ),
};

/**
 * The disk (or the user's quota) is full, in the file system's words. Not the client's
 * doing, but not a fault it should read as one either: the same request can succeed once
 * space is freed. (A database's own words for it are its service's to translate.)
 */
export function isOutOfSpace(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/**
 * A service's reading of errors from outside the HTTP layer (its database's codes): an
 * AppError for those it knows, `undefined` for the rest. One a server-side status comes
 * back for (a full disk: 507) is still logged, for the operator.
 */
export type ErrorTranslator = (err: unknown) => AppError | undefined;
