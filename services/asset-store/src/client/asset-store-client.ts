import createClient, { type Client } from 'openapi-fetch';
import type { operations, paths } from './api-types.js';
import { ApiError, errorMessage } from './errors.js';
import type {
  Asset,
  AssetPage,
  AssetPatch,
  ChangePage,
  ContentLookup,
  DataIngest,
  DuplicatePage,
  EventType,
  FolderListing,
  FileIngestForm,
  IngestFields,
  IngestResult,
  Job,
  JobRequest,
  ListQuery,
  RebuildReport,
  SearchQuery,
  VerifyReport,
  Webhook,
  WebhookCreated,
  WebhookDelivery,
} from './types.js';

/** Where the store is and how requests reach it. */
export interface AssetStoreClientOptions {
  /**
   * The store's address, e.g. `http://127.0.0.1:8080` (a path prefix in front of the API is
   * kept); absent or `''` in a page the store serves itself.
   */
  baseUrl?: string;
  /** A bearer token sent with every request (the API token, or the admin token). */
  token?: string;
  /**
   * Sends one request; the global `fetch` when absent. The CLI passes one over its own
   * connection pool, the console one that asks for a token when the store wants one.
   */
  fetch?: (request: Request) => Promise<Response>;
}

/** What openapi-fetch resolves to, narrowed to what `dataOf` reads. */
type Answer<T> = { data?: T; error?: unknown; response: Response };

/**
 * The asset-store's JSON API, typed from its OpenAPI document (openapi-fetch over the
 * generated `paths`): every method answers the envelope's `data` or throws `ApiError`.
 * Browser-safe; streamed uploads (tus) and ranged downloads stay with their callers.
 */
export class AssetStoreClient {
  readonly #api: Client<paths>;

  constructor(options: AssetStoreClientOptions = {}) {
    this.#api = createClient<paths>({
      baseUrl: options.baseUrl ?? '',
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.token ? { headers: { authorization: `Bearer ${options.token}` } } : {}),
    });
  }

  /** `GET /list`: a page of assets by timestamp. */
  list(query: ListQuery = {}, signal?: AbortSignal): Promise<AssetPage> {
    // The values go out as text either way; the store validates them (`ListQuery`).
    const params = { query: query as Typed<'listAssets'> };
    return dataOf(this.#api.GET('/api/v1/can/0/list', { params, signal }));
  }

  /** `GET /search`: a page of the assets every filter given matches. */
  search(query: SearchQuery = {}, signal?: AbortSignal): Promise<AssetPage> {
    const params = { query: query as Typed<'searchAssets'> };
    return dataOf(this.#api.GET('/api/v1/can/0/search', { params, signal }));
  }

  /** `POST /search/sha256`: which of these contents (plain SHA-256) the store holds. */
  lookupContent(sha256: readonly string[], signal?: AbortSignal): Promise<ContentLookup> {
    const body = { sha256: [...sha256] };
    return dataOf(this.#api.POST('/api/v1/can/0/search/sha256', { body, signal }));
  }

  /** `GET /folders`: the subfolders of a folder (`''`: the top level), with their counts. */
  folders(path = '', signal?: AbortSignal): Promise<FolderListing> {
    const params = { query: { path } };
    return dataOf(this.#api.GET('/api/v1/can/0/folders', { params, signal }));
  }

  /** `GET /duplicates`: contents held by more than one asset, grouped, most copies first. */
  duplicates(
    query: { limit?: number; offset?: number } = {},
    signal?: AbortSignal,
  ): Promise<DuplicatePage> {
    const params = { query };
    return dataOf(this.#api.GET('/api/v1/can/0/duplicates', { params, signal }));
  }

  /** `GET /asset/{hash}/meta`: the metadata record. */
  meta(hash: string, signal?: AbortSignal): Promise<Asset> {
    const params = { path: { hash } };
    return dataOf(this.#api.GET('/api/v1/can/0/asset/{hash}/meta', { params, signal }));
  }

  /** `PATCH /asset/{hash}`: replaces the tags and/or the description given. */
  async update(hash: string, change: AssetPatch): Promise<void> {
    const params = { path: { hash } };
    await dataOf(this.#api.PATCH('/api/v1/can/0/asset/{hash}', { params, body: change }));
  }

  /** `DELETE /asset/{hash}`: moves the asset to the trash (idempotent). */
  async trash(hash: string): Promise<void> {
    const params = { path: { hash } };
    await dataOf(this.#api.DELETE('/api/v1/can/0/asset/{hash}', { params }));
  }

  /** `POST /asset/{hash}/restore`: takes the asset out of the trash (idempotent). */
  async restore(hash: string): Promise<void> {
    const params = { path: { hash } };
    await dataOf(this.#api.POST('/api/v1/can/0/asset/{hash}/restore', { params }));
  }

  /** `GET /asset/{hash}`: the whole content in memory (large files: stream it instead). */
  download(hash: string, signal?: AbortSignal): Promise<Blob> {
    const params = { path: { hash } };
    return bodyOf(this.#api.GET('/api/v1/can/0/asset/{hash}', { params, signal, parseAs: 'blob' }));
  }

  /** `GET /asset/{hash}/thumb/{w}/{h}`: a JPEG (or an SVG placeholder) fitting the box. */
  thumbnail(hash: string, width: number, height = width, signal?: AbortSignal): Promise<Blob> {
    const params = { path: { hash, max_width: width, max_height: height } };
    return bodyOf(
      this.#api.GET('/api/v1/can/0/asset/{hash}/thumb/{max_width}/{max_height}', {
        params,
        signal,
        parseAs: 'blob',
      }),
    );
  }

  /** `POST /ingest/data`: stores a JSON value with its metadata. */
  ingestData(body: DataIngest, signal?: AbortSignal): Promise<IngestResult> {
    return dataOf(this.#api.POST('/api/v1/can/0/ingest/data', { body, signal }));
  }

  /** `POST /ingest`: stores one file (as a browser's form would send it) with its metadata. */
  ingestFile(
    file: Blob,
    filename: string,
    fields: IngestFields = {},
    signal?: AbortSignal,
  ): Promise<IngestResult> {
    const form = new FormData();
    // The text fields first: the store reads them before it takes the file.
    for (const [name, value] of Object.entries(fields)) {
      if (value !== undefined && value !== '') form.append(name, value);
    }
    form.append('file', file, filename);
    // The schema types the file as a string (`format: binary`); openapi-fetch sends FormData as is.
    const body = form as unknown as FileIngestForm;
    return dataOf(this.#api.POST('/api/v1/can/0/ingest', { body, signal }));
  }

  /** `POST /admin/jobs`: starts a verify, rebuild or backfill job (admin token); answers it running. */
  startJob(request: JobRequest): Promise<Job> {
    return dataOf(this.#api.POST('/api/v1/can/0/admin/jobs', { body: request }));
  }

  /** `GET /admin/jobs`: the most recent jobs, newest first (admin token). */
  jobs(signal?: AbortSignal): Promise<Job[]> {
    return dataOf(this.#api.GET('/api/v1/can/0/admin/jobs', { signal }));
  }

  /** `GET /admin/jobs/{id}`: one job with its live progress (admin token). */
  job(id: string, signal?: AbortSignal): Promise<Job> {
    const params = { path: { id } };
    return dataOf(this.#api.GET('/api/v1/can/0/admin/jobs/{id}', { params, signal }));
  }

  /** `DELETE /admin/jobs/{id}`: cancels a running job; answers it once stopped (admin token). */
  cancelJob(id: string): Promise<Job> {
    const params = { path: { id } };
    return dataOf(this.#api.DELETE('/api/v1/can/0/admin/jobs/{id}', { params }));
  }

  /** `GET /changes`: the events after a cursor (from the oldest kept without one), in commit order. */
  changes(
    query: { after?: string; limit?: number } = {},
    signal?: AbortSignal,
  ): Promise<ChangePage> {
    const params = { query };
    return dataOf(this.#api.GET('/api/v1/can/0/changes', { params, signal }));
  }

  /** `POST /admin/webhooks`: subscribes a URL to the feed (every type without `types`); admin token. */
  createWebhook(url: string, types?: EventType[]): Promise<WebhookCreated> {
    const body = types === undefined ? { url } : { url, types };
    return dataOf(this.#api.POST('/api/v1/can/0/admin/webhooks', { body }));
  }

  /** `GET /admin/webhooks`: every webhook, without its secret (admin token). */
  webhooks(signal?: AbortSignal): Promise<Webhook[]> {
    return dataOf(this.#api.GET('/api/v1/can/0/admin/webhooks', { signal }));
  }

  /** `DELETE /admin/webhooks/{id}`: deletes a webhook, its queue and its log (admin token). */
  async deleteWebhook(id: string): Promise<void> {
    const params = { path: { id } };
    await dataOf(this.#api.DELETE('/api/v1/can/0/admin/webhooks/{id}', { params }));
  }

  /** `GET /admin/webhooks/{id}/deliveries`: its recent delivery attempts, newest first (admin token). */
  webhookDeliveries(id: string, signal?: AbortSignal): Promise<WebhookDelivery[]> {
    const params = { path: { id } };
    return dataOf(
      this.#api.GET('/api/v1/can/0/admin/webhooks/{id}/deliveries', { params, signal }),
    );
  }

  /** `POST /admin/verify`: scrubs every asset and answers when done (admin token). */
  verify(): Promise<VerifyReport> {
    return dataOf(this.#api.POST('/api/v1/can/0/admin/verify'));
  }

  /** `POST /admin/rebuild`: rebuilds the index from the storage and answers when done. */
  rebuild(mode: RebuildReport['mode'] = 'soft'): Promise<RebuildReport> {
    const params = { query: { mode } };
    return dataOf(this.#api.POST('/api/v1/can/0/admin/rebuild', { params }));
  }

  /** `DELETE /admin/asset/{hash}`: purges an asset for good (admin token). */
  async purge(hash: string): Promise<void> {
    const params = { path: { hash } };
    await dataOf(this.#api.DELETE('/api/v1/can/0/admin/asset/{hash}', { params }));
  }
}

/** An operation's query as the schema types it (`ListQuery` also takes text values). */
type Typed<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;

/** The envelope's `data` of a success; anything else becomes `ApiError`. */
async function dataOf<T>(call: Promise<Answer<{ status: 'success'; data: T }>>): Promise<T> {
  const { data, error, response } = await answered(call);
  if (!response.ok || data?.status !== 'success') {
    throw new ApiError(response.status, errorMessage(error ?? data, response.status));
  }
  return data.data;
}

/** The body of a success that is not JSON (a file, a thumbnail). */
async function bodyOf(call: Promise<Answer<Blob>>): Promise<Blob> {
  const { data, error, response } = await answered(call);
  if (!response.ok || data === undefined) {
    throw new ApiError(response.status, errorMessage(error, response.status));
  }
  return data;
}

/** The answer; one whose JSON does not parse is not the store's (a proxy's page, say). */
async function answered<T>(call: Promise<Answer<T>>): Promise<Answer<T>> {
  try {
    return await call;
  } catch (err) {
    if (err instanceof SyntaxError) throw new ApiError(0, `unexpected answer: ${err.message}`);
    throw err;
  }
}
