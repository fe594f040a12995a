import { randomBytes } from 'node:crypto';
import type { Agent, Dispatcher } from 'undici';
import { API_BASE } from '../api-base.js';
import {
  AssetStoreClient,
  type Asset,
  type AssetPage,
  type ContentLookup,
  type IngestFields,
  type IngestResult,
} from '../client/index.js';
import { ApiError } from './cli-errors.js';
import { HttpPool } from './http-pool.js';
import { nodeHttpSender, parseOrigin, type Origin, type Sender } from './http-send.js';
import { senderFetch } from './sender-fetch.js';

/** Most digests one `POST /search/sha256` takes. */
export const MAX_LOOKUP_DIGESTS = 1000;

/** Query values: absent ones are left out. */
export type Query = Record<string, string | number | boolean | undefined>;

/** Where the store is and how to reach it. */
export interface StoreClientOptions {
  baseUrl: string;
  token?: string;
  /** Connections kept to the store; uploads with bounded concurrency need no more. */
  connections?: number;
}

/**
 * The store's HTTP API as the CLI uses it, over one keep-alive pool (`node:http`): the
 * typed JSON endpoints through the shared client (`api`, src/client); an upload's requests
 * (ingest, content lookups) sent directly, downloads streamed over undici; the bearer token
 * on every request, error envelopes turned into `ApiError`.
 */
export class StoreClient {
  readonly baseUrl: string;
  readonly #token: string | undefined;
  readonly #connections: number;
  #agent: Agent | undefined;
  readonly #origin: Origin;
  readonly #sender: Sender;
  #api: AssetStoreClient | undefined;

  constructor(options: StoreClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#token = options.token;
    this.#connections = options.connections ?? 8;
    this.#origin = parseOrigin(this.baseUrl);
    this.#sender = this.#origin.https
      ? nodeHttpSender(this.#origin, this.#connections)
      : new HttpPool(this.#origin, this.#connections);
  }

  /** The typed JSON API (src/client), its requests sent over this client's pool. */
  get api(): AssetStoreClient {
    this.#api ??= new AssetStoreClient({
      baseUrl: this.baseUrl,
      ...(this.#token === undefined ? {} : { token: this.#token }),
      fetch: senderFetch(this.#sender, this.#origin),
    });
    return this.#api;
  }

  /** Headers every request carries. */
  get authHeaders(): Record<string, string> {
    return this.#token ? { authorization: `Bearer ${this.#token}` } : {};
  }

  /** The absolute URL of an API path (under `/api/v1/can/0`), with its query. */
  url(apiPath: string, query: Query = {}): string {
    return `${this.baseUrl}${target(apiPath, query)}`;
  }

  /**
   * One JSON request sent directly, resolving to the envelope's `data`: for an upload's
   * requests, which so skip openapi-fetch's Request and Response objects (their first use
   * in a process loads Node's fetch: 30-45 ms of CPU on Node 20, per upload run).
   */
  async #json<T>(
    method: Dispatcher.HttpMethod,
    apiPath: string,
    options: { query?: Query; body?: unknown; signal?: AbortSignal } = {},
  ): Promise<T> {
    const answer = await this.#sender.send(
      method,
      target(apiPath, options.query),
      {
        ...this.authHeaders,
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      options.body === undefined ? undefined : JSON.stringify(options.body),
      options.signal,
    );
    return envelopeData<T>(answer.statusCode, answer.text);
  }

  /** A request as sent, with the token; the caller reads or discards the body. */
  async raw(
    method: Dispatcher.HttpMethod,
    url: string,
    options: {
      headers?: Record<string, string>;
      body?: string | Buffer;
      signal?: AbortSignal;
      /** Longest silence while the body is read (undici's default: 300 s). */
      bodyTimeout?: number;
    } = {},
  ): Promise<Dispatcher.ResponseData> {
    // Loaded when a download needs it: an upload never does, and loading undici is a visible
    // share of a short upload run's CPU (bench/NOTES.md).
    const { Agent, request } = await import('undici');
    this.#agent ??= new Agent({ connections: this.#connections });
    return request(url, {
      method,
      dispatcher: this.#agent,
      headers: { ...this.authHeaders, ...options.headers },
      body: options.body,
      signal: options.signal,
      ...(options.bodyTimeout === undefined ? {} : { bodyTimeout: options.bodyTimeout }),
    });
  }

  /** `POST /ingest` of one in-memory file; `sha256` makes the store refuse other bytes. */
  async ingest(
    content: Buffer,
    filename: string,
    fields: IngestFields,
    signal?: AbortSignal,
  ): Promise<IngestResult> {
    const { body, type } = multipart(content, filename, fields);
    const answer = await this.#sender.send(
      'POST',
      INGEST_PATH,
      { ...this.authHeaders, 'content-type': type },
      body,
      signal,
    );
    return envelopeData<IngestResult>(answer.statusCode, answer.text);
  }

  /** The visible asset holding this content, if any (`GET /search?sha256=`). */
  async findByContent(sha256: string, signal?: AbortSignal): Promise<Asset | undefined> {
    const page = await this.#json<AssetPage>('GET', '/search', {
      query: { sha256, limit: 1 },
      signal,
    });
    return page.items[0];
  }

  /** Which of these contents the store shows, in one request (`POST /search/sha256`). */
  lookupContent(sha256: readonly string[], signal?: AbortSignal): Promise<ContentLookup> {
    return this.#json<ContentLookup>('POST', '/search/sha256', { body: { sha256 }, signal });
  }

  /** One cheap request (`GET /list?limit=1`): an unreachable store or a refused token throws. */
  async check(): Promise<void> {
    await this.#json('GET', '/list', { query: { limit: 1 } });
  }

  /** Closes the pooled connections. */
  async close(): Promise<void> {
    this.#sender.close();
    await this.#agent?.close();
  }
}

/** An API path and its query as a request target below the base URL. */
function target(apiPath: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) params.set(key, String(value));
  }
  const search = params.size > 0 ? `?${params.toString()}` : '';
  return `${API_BASE}${apiPath}${search}`;
}

const INGEST_PATH = target('/ingest');

/** One random part per process, a counter per body: the boundary never repeats in a run. */
const BOUNDARY_PREFIX = `----asset-store-${randomBytes(12).toString('hex')}-`;
let boundaries = 0;

/**
 * A `multipart/form-data` body as three chunks around the content, encoded as browsers
 * encode FormData.
 * Hand-written (a dozen lines): a file of at most 8 MiB is already in memory, and undici's
 * FormData would stream each part through a Blob instead of one write.
 */
function multipart(
  content: Buffer,
  filename: string,
  fields: IngestFields,
): { body: Buffer[]; type: string } {
  const boundary = BOUNDARY_PREFIX + (boundaries++).toString(36);
  // WHATWG's escaping of names in part headers: quotes and line breaks percent-encoded.
  const escape = (text: string) =>
    text.replaceAll('"', '%22').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
  let head = '';
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === '') continue;
    head += `--${boundary}\r\nContent-Disposition: form-data; name="${key}"\r\n\r\n${value}\r\n`;
  }
  head +=
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${escape(filename)}"\r\n` +
    'Content-Type: application/octet-stream\r\n\r\n';
  return {
    body: [Buffer.from(head), content, Buffer.from(`\r\n--${boundary}--\r\n`)],
    type: `multipart/form-data; boundary=${boundary}`,
  };
}

/** Reads a JSON envelope; an error status or envelope becomes `ApiError`. */
export async function readData<T>(res: Dispatcher.ResponseData): Promise<T> {
  return envelopeData<T>(res.statusCode, await res.body.text());
}

/** The `data` of a JSON envelope; an error status or envelope becomes `ApiError`. */
function envelopeData<T>(statusCode: number, text: string): T {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(statusCode, `unexpected answer: ${text.slice(0, 200)}`);
  }
  const envelope = body as { status?: string; data?: unknown; error?: unknown };
  if (statusCode >= 400 || envelope.status !== 'success') {
    const message = typeof envelope.error === 'string' ? envelope.error : text.slice(0, 200);
    throw new ApiError(statusCode, message);
  }
  return envelope.data as T;
}
