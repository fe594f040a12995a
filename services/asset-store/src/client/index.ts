// The asset-store's browser-safe client: openapi-fetch and the types generated from the
// service's OpenAPI document (README.md says how to regenerate them).
export { AssetStoreClient } from './asset-store-client.js';
export type { AssetStoreClientOptions } from './asset-store-client.js';
export { ApiError } from './errors.js';
export type {
  Asset,
  AssetPage,
  AssetPatch,
  BackfillReport,
  ChangeEvent,
  ChangePage,
  ContentLookup,
  DataIngest,
  DuplicatePage,
  EventType,
  FolderListing,
  IngestFields,
  IngestResult,
  Job,
  JobKind,
  JobRequest,
  JobStatus,
  ListQuery,
  Pagination,
  RebuildReport,
  SearchQuery,
  VerifyReport,
  Webhook,
  WebhookCreated,
  WebhookDelivery,
} from './types.js';
export type { components, operations, paths } from './api-types.js';
