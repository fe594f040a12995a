import { AppError, errors } from '@svc/envelope';

/**
 * The one handle-relay error catalogue. Services throw these; the error middleware renders
 * them as `{"error":{"code","message"}}`. Messages the spec fixes are spelled here once.
 */
export const relayErrors = {
  ...errors,
  /** 400 for a path or body handle that breaks the handle rules (or is reserved). */
  invalidHandle: (detail = 'invalid handle') => errors.badRequest(detail),
  /** 409 for a row the database already holds (a unique key), found at commit. */
  alreadyExists: () => errors.conflict('already exists'),
  /** 400 for a value the database refused (out of range, too long). */
  invalidValue: () => errors.badRequest('invalid value'),
  /** 404 for a handle nobody registered. */
  unknownHandle: () => errors.notFound('handle not found'),
  /** 404 for a primary that owns no handle. */
  unknownPrimary: () => errors.notFound('no handle for this primary'),
  /** 400 for a `by-primary` value that is not `ed25519:<64 hex>`. */
  invalidPrimary: () => errors.badRequest('primary must be ed25519:<64 hex characters>'),
  /** 409 when the handle is already claimed. */
  handleTaken: (handle: string) => errors.conflict(`handle ${handle} is already claimed`),
  /** 409 when the primary already owns a handle. */
  primaryTaken: () => errors.conflict('this primary already owns a handle'),
  /** 400 when the registration names another server. */
  serverMismatch: (given: string, ours: string) =>
    errors.badRequest(`registration server ${given} does not match this server ${ours}`),
  /** 401: no `X-ID-Auth` header on a protected route. */
  missingAuth: () => errors.unauthorized('missing X-ID-Auth header'),
  /** 401: the auth value is not `<unix_ts>:<sig_hex>` with an integer timestamp. */
  malformedAuth: () =>
    errors.unauthorized('malformed auth value: expected <unix_ts>:<sig_hex> with an integer ts'),
  /** 401: the auth timestamp is more than 60 s away from the server clock. */
  staleAuth: () => errors.unauthorized('auth header is stale'),
  /** 401: the signature does not verify for this operation and key. */
  badSignature: () => errors.unauthorized('signature did not verify'),
  /** 400: more proofs than a profile may hold. */
  tooManyProofs: (max: number) => errors.badRequest(`too many proofs (max ${max})`),
  /** 400: WebFinger `resource` without the `acct:` prefix. */
  resourceNotAcct: () => errors.badRequest('resource must start with acct:'),
  /** 400: a registration without a body. */
  registrationMissing: () => errors.badRequest('request body must be a signed registration'),
  /** 400: a registration signed with another suite than ours. */
  unsupportedAlg: (alg: string, expected: string) =>
    errors.badRequest(`unsupported signature alg ${alg} (expected ${expected})`),
  /** 400: the registration's `signature.key` is no primary. */
  invalidSignatureKey: () => errors.badRequest('signature.key must be ed25519:<64 hex characters>'),
  /** 400: the registration is signed by another key than the primary it claims. */
  signatureKeyMismatch: () => errors.badRequest('signature.key must equal payload.primary'),
  /** 400: the registration's signature does not verify. */
  registrationSignature: () => errors.badRequest('registration signature did not verify'),
  /** 400: the registration's timestamp is too far from the server clock. */
  registrationSkew: (seconds: number) =>
    errors.badRequest(`registration timestamp is more than ${seconds} s away from server time`),
  /** 400: a payload the canonicalizer cannot recurse into. */
  payloadTooDeep: () =>
    errors.badRequest('registration payload is nested too deeply to canonicalize'),
  /** 400: a payload number RFC 8785 cannot write (`1e400`). */
  payloadNumber: () =>
    errors.badRequest('registration payload holds a number outside what RFC 8785 can write'),
  /** 400: WebFinger without a `resource`. */
  resourceMissing: () => errors.badRequest('missing resource query parameter'),
  /** 400: WebFinger with `resource` repeated. */
  resourceRepeated: () => errors.badRequest('resource must be given once'),
  /** 400: a WebFinger `acct:` resource without `@<server>`. */
  resourceNotAccount: () => errors.badRequest('resource must be acct:<handle>@<server>'),
  /** 404: a WebFinger resource of another server. */
  resourceElsewhere: () => errors.notFound('resource is not on this server'),
  /** 400: a send to a handle of another server. */
  recipientElsewhere: () => errors.badRequest('to must be a handle of this server'),
  /** 413: an envelope past the contract's limit. */
  envelopeTooLarge: (maxBytes: number) =>
    errors.payloadTooLarge(`envelope is larger than ${maxBytes} bytes`),
  /** 400: a stream opened without its `auth` query parameter. */
  streamAuthMissing: () => errors.badRequest('missing auth query parameter'),
  /** 400: a stream resume point (`since` or `Last-Event-ID`) that is no cursor. */
  invalidResumePoint: (from: 'since' | 'Last-Event-ID') =>
    errors.badRequest(`${from} must be a non-negative integer`),
  /** 400: a push endpoint the relay will not call (see `endpointProblem`). */
  unsafeEndpoint: (problem: string) => errors.badRequest(problem),
  /** 400: a log size (or entry index) beyond the current signed tree head. */
  beyondHead: (name: string) => errors.badRequest(`${name} is beyond the current tree head`),
  /** 400: a log query parameter that is not what it must be. */
  invalidLogQuery: (name: string, what: string) => errors.badRequest(`${name} must be ${what}`),
  /** 400: a `GET /v1/log/entries` range wider than one answer holds. */
  entriesRangeTooWide: (max: number) =>
    errors.badRequest(`end - start must be at most ${max}: ask for the rest in further requests`),
  /** 404: no leaf with this hash in the tree of the given size. */
  leafNotFound: () => errors.notFound('no leaf with this hash in the tree of this size'),
  /** 404: no handle's chain holds this key. */
  unknownSigchain: () => errors.notFound('no signature chain holds this key'),
  /** 400: a rotation body that is not a rotate link. */
  invalidRotation: (detail: string) => errors.badRequest(detail),
  /** 401: a rotation signature that does not verify. */
  rotationSignature: (detail: string) => errors.unauthorized(detail),
  /** 409: a rotation that does not follow the chain's last line. */
  staleRotation: () =>
    errors.conflict("prev is not the hash of the chain's last line (the chain moved on)"),
  /** 409: a rotation to a key that already belongs to a handle. */
  rotationKeyTaken: () => errors.conflict('the new key already belongs to a handle'),
  /** 503 from `GET /v1/healthz` while the database does not answer. */
  databaseUnreachable: () => errors.unavailable('database unreachable'),
  /** 503 for work that arrives once shutdown began. */
  shuttingDown: () => errors.unavailable('the server is shutting down'),
  /** 501 for the message-bus callout stub. */
  natsAuthNotImplemented: () =>
    errors.notImplemented('the message-bus auth callout is not implemented in this version'),
};

/**
 * Start-up problems of a setting that its schema cannot see (the file system's state), each
 * one line naming the setting, reported like any bad setting (exit 2).
 */
export const settingProblems = {
  /** `web_dir` names nothing, or something that is not a folder. */
  webDirNotAFolder: (dir: string) => `web_dir: ${dir} is not a folder`,
  /** `web_dir` has no `index.html`, which every client-side route falls back to. */
  webDirWithoutIndex: (dir: string) => `web_dir: ${dir} holds no index.html`,
  /** NATS fans out between instances, and the embedded database serves one process. */
  natsWithoutServer: () =>
    'pubsub: nats needs a postgres:// db (the embedded database has one instance)',
};

export { AppError };
