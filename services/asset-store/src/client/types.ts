// Domain names for the generated types (api-types.ts): never declared here by hand, so a
// field the server's schema gains reaches every client with `gen:client`.
import type { components, operations } from './api-types.js';

type Schemas = components['schemas'];
type Query<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;
type JsonBody<Op extends keyof operations> = operations[Op] extends {
  requestBody?: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;

/** An asset metadata record (`GET /asset/{hash}/meta`, and each item of list and search). */
export type Asset = Schemas['AssetRecord'];
/** A page of list or search: the items and where they sit among all matches. */
export type AssetPage = Schemas['AssetPage'];
/** Limit, offset and the exact number of matches of a page. */
export type Pagination = AssetPage['pagination'];
/** `GET /folders`: a folder's subfolders with their counts. */
export type FolderListing = Schemas['FolderListing'];
/** `GET /duplicates`: a page of groups of assets holding the same content. */
export type DuplicatePage = Schemas['DuplicatePage'];
/** What both ingest endpoints answer. */
export type IngestResult = Schemas['IngestResult'];
/** What `POST /search/sha256` answers: the digests held (newest asset each) and the rest. */
export type ContentLookup = Schemas['ContentLookup'];
/** A verify, rebuild or backfill job of `/admin/jobs`, with its live progress. */
export type Job = Schemas['Job'];
/** What a job does. */
export type JobKind = Job['kind'];
/** Where a job stands. */
export type JobStatus = Job['status'];
/** The body that starts a job: `{kind: 'verify'}`, `{kind: 'rebuild', mode?}` or `{kind: 'backfill'}`. */
export type JobRequest = JsonBody<'startJob'>;
/** The counts of a scrub (`POST /admin/verify`, a verify job's result). */
export type VerifyReport = Schemas['VerifyReport'];
/** The counts of a rebuild (`POST /admin/rebuild`, a rebuild job's result). */
export type RebuildReport = Schemas['RebuildReport'];
/** The counts of a backfill job (`{kind: 'backfill'}`): facts probed for older assets. */
export type BackfillReport = Schemas['BackfillReport'];
/** One change of the index (`GET /changes`, the stream, a webhook's body). */
export type ChangeEvent = Schemas['ChangeEvent'];
/** What a change is: `asset.created`, `asset.updated`, … */
export type EventType = ChangeEvent['type'];
/** A page of the change feed: its events and the cursor to page on from. */
export type ChangePage = Schemas['ChangePage'];
/** A webhook as `GET /admin/webhooks` shows it (no secret). */
export type Webhook = Schemas['Webhook'];
/** A webhook just created, with its signing secret (shown this once). */
export type WebhookCreated = Schemas['WebhookCreated'];
/** One delivery attempt of a webhook's log. */
export type WebhookDelivery = Schemas['WebhookDelivery'];
/** A `PATCH /asset/{hash}` body: new tags and/or description. */
export type AssetPatch = JsonBody<'updateAsset'>;
/** The body of `POST /ingest/data`: the JSON value and its metadata fields. */
export type DataIngest = JsonBody<'ingestData'>;
/** The form `POST /ingest` takes: the file and its metadata fields. */
export type FileIngestForm =
  operations['ingestFile']['requestBody']['content']['multipart/form-data'];
/** The text fields `POST /ingest` takes beside the file. */
export type IngestFields = Partial<Record<Exclude<keyof FileIngestForm, 'file'>, string>>;

/**
 * Query values as the schema types them, or as text a person typed (the store validates
 * it and names what is wrong): a CLI flag or a console filter is passed on as given.
 */
type AsTyped<T> = { [K in keyof T]?: T[K] | string };
/** The parameters of `GET /list`. */
export type ListQuery = AsTyped<Query<'listAssets'>>;
/** The parameters of `GET /search` (the list ones and the filters). */
export type SearchQuery = AsTyped<Query<'searchAssets'>>;
