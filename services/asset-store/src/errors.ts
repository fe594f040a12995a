import { AppError, errors } from '@svc/envelope';

/**
 * The asset-store's one error catalogue. Every domain failure is built here, so a code or a
 * message text is defined once; the envelope renderer turns them into `{status, error}`.
 */
export const assetErrors = {
  /** A body, form or query that is not a JSON object (a form or query always is). */
  notAnObject: (source: string) => errors.badRequest(`invalid ${source}: expected a JSON object`),
  /** A field a strict schema does not know. */
  unknownField: (source: string, field: string) =>
    errors.badRequest(`invalid ${source}: unknown field "${field}"`),
  /** A field whose value is wrong; `problem` says what was expected. */
  invalidField: (field: string, problem: string) =>
    errors.badRequest(`invalid ${field}: ${problem}`),
  /** A query or path parameter that is not acceptable, named in the message. */
  badParameter: (name: string, expected: string) =>
    errors.badRequest(`invalid ${name}: expected ${expected}`),
  /** Data ingest whose body is not an object holding `data`. */
  missingData: () => errors.badRequest('invalid body: expected a JSON object with a "data" key'),
  /** A multipart body the parser cannot read, in the parser's words. */
  malformedMultipart: (detail: string) => errors.badRequest(`invalid multipart body: ${detail}`),
  /** A multipart text field longer than the parser takes. */
  fieldTooLong: (field: string) => errors.badRequest(`invalid ${field}: value too long`),
  /** `{hash}` in a path that is not 64 hexadecimal characters. */
  badHash: () => errors.badRequest('invalid hash: expected 64 hexadecimal characters'),
  /** A container id other than `0`. */
  containerNotFound: () => errors.notFound('container not found'),
  /** No asset has this hash. */
  notFound: () => errors.notFound('asset not found'),
  /** The stored content no longer matches the hash (verifier flag or failed check). */
  corrupted: () =>
    new AppError(500, 'corrupted', 'asset is corrupted: content does not match its hash'),
  /** The asset's file is gone from the storage root. */
  missingFile: () => new AppError(500, 'corrupted', 'asset is corrupted: its file is missing'),
  /** File ingest whose content's SHA-256 is not the `sha256` field. */
  digestMismatch: () =>
    errors.badRequest('invalid sha256: the file content has a different SHA-256'),
  /** File ingest without a `file` part. */
  missingFilePart: () => errors.badRequest('missing file: exactly one "file" part is required'),
  /** File ingest with more than one `file` part. */
  tooManyFiles: () => errors.badRequest('too many files: exactly one "file" part is required'),
  /** A multipart part that is neither `file` nor a known field. */
  unexpectedPart: (name: string) => errors.badRequest(`unexpected multipart part "${name}"`),
  /** Data ingest whose value JSON.stringify cannot indent (nesting or length past V8's limits). */
  unstorableData: () =>
    errors.badRequest('invalid data: too deeply nested or too large once indented'),
  /** A multipart body sent with a `Content-Encoding` (the parser reads the bytes as sent). */
  unsupportedEncoding: () =>
    new AppError(415, 'unsupported_media_type', 'unsupported body encoding'),
  /** The `file` part is larger than `max_upload_bytes`. */
  uploadTooLarge: (limit: number) =>
    errors.payloadTooLarge(`file too large: the limit is ${limit} bytes`),
  /** A `Range` that lies outside the content; `Content-Range` says how large it is. */
  rangeNotSatisfiable: (size: number) =>
    new AppError(416, 'range_not_satisfiable', 'range not satisfiable', {
      'Content-Range': `bytes */${size}`,
    }),
  /** `If-Match` or `If-Unmodified-Since` that the asset does not meet. */
  preconditionFailed: () => new AppError(412, 'precondition_failed', 'precondition failed'),
  /** A row the index already holds (unique violation). */
  alreadyExists: () => errors.conflict('already exists'),
  /** A value the index's columns refuse (bad text form, out of range, a check). */
  invalidValue: () => errors.badRequest('invalid value'),
  /** The index's database (or the disk under the files) is out of space. */
  outOfSpace: () => errors.insufficientStorage(),
  /** Admin endpoints: no or wrong bearer token. */
  unauthorized: () => errors.unauthorized('missing or invalid admin token'),
  /** Data endpoints with `api_token` set: no or wrong bearer token. */
  apiUnauthorized: () =>
    new AppError(401, 'unauthorized', 'missing or invalid API token', {
      'WWW-Authenticate': 'Bearer',
    }),
  /** The index's database does not answer now: 503 with `Retry-After`. */
  databaseUnavailable: () => errors.databaseUnavailable(),
  /**
   * The blob store (S3) does not answer or answers that it cannot now (refused, reset,
   * timed out, a 5xx): 503 with the same `Retry-After` as a database outage.
   */
  storageUnavailable: () =>
    new AppError(503, 'unavailable', 'the storage is unavailable: try again shortly', {
      'Retry-After': errors.databaseUnavailable().headers['Retry-After']!,
    }),
  /** `GET /healthz` while the index does not answer. */
  databaseUnreachable: () => errors.unavailable('database unreachable'),
  /** `GET /healthz` while the blob store cannot reach S3: `reason` names it and why. */
  storageUnreachable: (reason: string) => errors.unavailable(`storage unreachable: ${reason}`),
  /** `GET /healthz` before the service can serve: `waitingFor` says on what it waits. */
  starting: (waitingFor: string) =>
    new AppError(503, 'unavailable', `starting: ${waitingFor}`, {
      'Retry-After': errors.databaseUnavailable().headers['Retry-After']!,
    }),
  /** Any other request before the service can serve. */
  notReady: (waitingFor: string) =>
    new AppError(503, 'unavailable', `the service is starting (${waitingFor}): try again shortly`, {
      'Retry-After': errors.databaseUnavailable().headers['Retry-After']!,
    }),
  /** `POST /admin/jobs` while a job of that kind runs: one of a kind at a time. */
  jobAlreadyRunning: (kind: string, id: string) =>
    errors.conflict(`a ${kind} job is already running: ${id}`),
  /** `POST /admin/jobs` while the service shuts down: the job could not finish. */
  stopping: () => errors.unavailable('the service is stopping'),
  /** A job id that is no job's. */
  jobNotFound: () => errors.notFound('job not found'),
  /** A `{id}` of `/admin/jobs/{id}` that is not a UUID. */
  badJobId: () => errors.badRequest('invalid id: expected a job id (UUID)'),
  /** A resumable upload id that is not one this service hands out, or is gone. */
  uploadNotFound: () => errors.notFound('upload not found'),
  /** A tus request while another request writes the same upload: try again shortly. */
  uploadBusy: () =>
    new AppError(
      423,
      'locked',
      'the upload is busy: another request is writing it; try again shortly',
      { 'Retry-After': '1' },
    ),
  /** An `Upload-Checksum` header that is not `<algorithm> <base64 digest>`. */
  badChecksumHeader: () =>
    errors.badRequest('invalid Upload-Checksum: expected "sha256 <base64 of 32 bytes>"'),
  /** An `Upload-Checksum` algorithm other than the one advertised (tus: 400). */
  /** A creation body that is not the upload's bytes (`application/offset+octet-stream`). */
  uploadBodyType: () =>
    new AppError(
      415,
      'unsupported_media_type',
      "unsupported body type: an upload's bytes are sent as application/offset+octet-stream",
    ),
  unsupportedChecksum: (algorithm: string) =>
    errors.badRequest(
      `invalid Upload-Checksum: unsupported algorithm "${algorithm}" (sha256 only)`,
    ),
  /** A PATCH whose body does not match its `Upload-Checksum`; tus's own status, 460. */
  checksumMismatch: () =>
    new AppError(460, 'checksum_mismatch', 'checksum mismatch: the bytes were not kept'),
  /** Admin endpoints while no `admin_token` is configured. */
  adminDisabled: () => errors.forbidden('admin endpoints are disabled: no admin_token configured'),
  /** `/console/` while its built files are absent (the web app was never built). */
  consoleNotBuilt: () =>
    errors.unavailable(
      'the console is not built: run `pnpm build` (it writes services/asset-store/web/dist)',
    ),
  /** A file under `/console/` that the built console does not have. */
  consoleFileNotFound: () => errors.notFound('no such console file'),
};
