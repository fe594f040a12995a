export { AppError, errors, isOutOfSpace } from './errors.js';
export type { ErrorTranslator } from './errors.js';
export { bodyError, hasBody, readBodyBytes, readBodyText } from './body.js';
export type { ReadBodyOptions } from './body.js';
export { clientAddressFunction, expressTrustProxy } from './client-address.js';
export type { ClientAddress, TrustProxyValue } from './client-address.js';
export { decodeJsonUtf8, decodeUtf8 } from './utf8.js';
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
export { handlerLane, jsonLane } from './lane.js';
export type { HandlerLaneOptions, LaneOptions, NodeHandler } from './lane.js';
export { createLogger, createMetrics } from './observability.js';
export { requestLogging, startRequestLine } from './request-logging.js';
export type { Metrics } from './observability.js';
export { API_DOCS_PATH, apiDocsOpenApi, apiDocsRoutes } from './api-docs.js';
export { serve } from './serve.js';
export { baseUrlOf, exitQuietlyWhileStarting, listenFailure, readyLine } from './start-up.js';
export type { ListenSetting } from './start-up.js';
export type { ServeOptions, Served } from './serve.js';
export { mapOperations, OPENAPI_LICENSE, openApiDocument } from './openapi-document.js';
export type {
  OpenApiContribution,
  OpenApiDocumentParts,
  OpenApiObject,
} from './openapi-document.js';
export {
  isLocalhostName,
  isPrivateAddress,
  privateRefusingLookup,
  resolveHost,
  urlHost,
} from './outbound-guard.js';
