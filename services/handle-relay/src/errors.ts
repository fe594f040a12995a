import { AppError, errors } from '@svc/envelope';

/**
 * The one handle-relay error catalogue. Services throw these; the error middleware renders
 * them as `{"error":{"code","message"}}`. Messages the spec fixes are spelled here once.
 */
export const relayErrors = {
  ...errors,
  /** 400 for a path or body handle that breaks the handle rules (or is reserved). */
  invalidHandle: (detail = 'invalid handle') => errors.badRequest(detail),
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
};

export { AppError };
