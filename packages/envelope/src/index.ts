export { AppError, errors, fromDatabaseError, isUniqueViolation } from './errors.js';
export { assetStoreError, handleRelayError, success } from './envelopes.js';
export type { ErrorRenderer } from './envelopes.js';
export {
  errorHandler,
  JsonText,
  methodNotAllowed,
  notFound,
  sendError,
  writeError,
  writeJson,
} from './middleware.js';
export { jsonLane } from './lane.js';
export type { LaneOptions } from './lane.js';
export { createLogger, createMetrics } from './observability.js';
export { requestLogging, startRequestLine } from './request-logging.js';
export type { Metrics } from './observability.js';
export { serve } from './serve.js';
export type { ServeOptions, Served } from './serve.js';
