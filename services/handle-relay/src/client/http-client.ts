import type { KeyPair } from './keys.js';
import { chainLines, type SigchainLink } from './sigchain.js';
import { authLines, signRegistration, signedAuthValue, unixNow } from './signing.js';

/** A handle record as the relay returns it. */
export interface HandleRecord {
  handle: string;
  fqhn: string;
  primary: string;
  sigchain_url: string;
  registered_at: string;
  proofs: string[];
}

/** One inbox page: messages ascending by seq, and where to continue. */
export interface InboxPage {
  messages: { seq: number; envelope: unknown; created_at: string }[];
  next_since: number;
  has_more: boolean;
}

/** A signed tree head (`GET /v1/log/head`). */
export interface TreeHead {
  size: number;
  root: string;
  timestamp: number;
  key: string;
  sig: string;
}

/** The widest `GET /v1/log/entries` range the relay serves in one answer (CONTRACT.md). */
export const LOG_ENTRIES_MAX = 1000;

/** A non-2xx answer from the relay, with its envelope's code and message. */
export class RelayClientError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'RelayClientError';
  }
}

/**
 * The relay did not answer at all (refused, no route, a name that does not resolve): says
 * which URL was tried. A TypeError, as fetch's own failure is, so callers that treat a
 * TypeError as "offline" keep doing so.
 */
export class RelayUnreachableError extends TypeError {
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    super(`cannot reach the relay at ${url}${reasonOf(cause)}`, { cause });
    this.name = 'RelayUnreachableError';
  }
}

/** The system's reason under fetch's "fetch failed" (ECONNREFUSED, ENOTFOUND...), if any. */
function reasonOf(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return ` (${cause.code})`;
  if (typeof cause?.message === 'string') return ` (${cause.message})`;
  return '';
}

/** Options of a relay client; `fetch` is injectable for tests and odd runtimes. */
export interface RelayClientOptions {
  baseUrl: string;
  fetch?: typeof fetch;
}

/** A small fetch-based client of the identity endpoints (runs in Node and browsers). */
export class RelayClient {
  private readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;

  constructor(options: RelayClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    // Unbound, a browser's fetch called as this.fetchImpl() throws "Illegal invocation".
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  }

  /** `GET /v1/healthz`. */
  health(): Promise<{ status: string; server: string; version: string }> {
    return this.json('GET', '/v1/healthz');
  }

  /** Claims `handle` on `server` for the key pair (signed registration). */
  register(server: string, handle: string, keys: KeyPair): Promise<HandleRecord> {
    const body = signRegistration({ server, handle, secretKey: keys.secretKey });
    return this.json('POST', '/v1/register', { body });
  }

  /** `GET /v1/u/{handle}`. */
  lookup(handle: string): Promise<HandleRecord> {
    return this.json('GET', `/v1/u/${encodeURIComponent(handle)}`);
  }

  /** `GET /v1/by-primary/{primary}`. */
  byPrimary(primary: string): Promise<HandleRecord> {
    return this.json('GET', `/v1/by-primary/${encodeURIComponent(primary)}`);
  }

  /** Replaces the published proofs of `handle` (signed with `X-ID-Auth`). */
  async setProofs(handle: string, proofs: readonly string[], keys: KeyPair): Promise<void> {
    // The relay folds the path's case and checks the signature over the folded handle.
    const folded = handle.toLowerCase();
    const auth = signedAuthValue(keys.secretKey, authLines.setProofs(folded), unixNow());
    await this.json('PUT', `/v1/profile/${encodeURIComponent(folded)}/proofs`, {
      body: { proofs },
      headers: { 'X-ID-Auth': auth },
    });
  }

  /** `POST /v1/messages`: relays `envelope` to `to` (no sender authentication). */
  send(to: string, envelope: unknown): Promise<{ seq: number; created_at: string }> {
    return this.json('POST', '/v1/messages', { body: { to, envelope } });
  }

  /**
   * `POST /v1/messages` with the envelope given as JSON text, sent as written: the relay
   * keeps an envelope's text, so numbers beyond a double's precision (`12345678901234567890`)
   * or in a form of their own (`1.50`) arrive as the sender wrote them. Text that is not
   * JSON rejects with a SyntaxError and sends nothing.
   */
  async sendJson(to: string, envelopeJson: string): Promise<{ seq: number; created_at: string }> {
    // Spliced into the body, text that is not one JSON value could add members of its own.
    JSON.parse(envelopeJson);
    return this.json('POST', '/v1/messages', {
      rawBody: `{"to":${JSON.stringify(to)},"envelope":${envelopeJson}}`,
    });
  }

  /** One signed inbox page of messages after `since` (default 0). */
  inbox(
    handle: string,
    keys: KeyPair,
    options: { since?: number; limit?: number } = {},
  ): Promise<InboxPage> {
    const since = options.since ?? 0;
    const auth = signedAuthValue(keys.secretKey, authLines.inbox(handle, since), unixNow());
    const query = new URLSearchParams({ since: String(since) });
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    return this.json('GET', `/v1/inbox/${encodeURIComponent(handle)}?${query.toString()}`, {
      headers: { 'X-ID-Auth': auth },
    });
  }

  /** The lines of the chain of any key the handle ever had (`GET /v1/sigchains/...`). */
  async sigchain(primary: string): Promise<string[]> {
    const [scheme, value] = primary.split(':');
    const res = await this.fetchImpl(
      `${this.baseUrl}/v1/sigchains/${encodeURIComponent(scheme ?? '')}/${encodeURIComponent(value ?? '')}`,
    );
    const text = await res.text();
    if (!res.ok) {
      const err = (JSON.parse(text) as { error?: { code?: string; message?: string } }).error;
      throw new RelayClientError(
        res.status,
        err?.code ?? 'unknown',
        err?.message ?? `HTTP ${res.status}`,
      );
    }
    return chainLines(text);
  }

  /** `POST /v1/rotate` with a signed `rotate` link; the record on its new key. */
  rotate(link: SigchainLink): Promise<HandleRecord> {
    return this.json('POST', '/v1/rotate', { body: link });
  }

  /** `GET /v1/log/head`. */
  logHead(): Promise<TreeHead> {
    return this.json('GET', '/v1/log/head');
  }

  /** `GET /v1/log/inclusion`: the audit path of a leaf hash in the tree of `size`. */
  logInclusion(
    leaf: string,
    size: number,
  ): Promise<{ index: number; size: number; path: string[] }> {
    return this.json('GET', `/v1/log/inclusion?leaf=${leaf}&size=${size}`);
  }

  /** `GET /v1/log/consistency`. */
  logConsistency(from: number, to: number): Promise<{ path: string[] }> {
    return this.json('GET', `/v1/log/consistency?from=${from}&to=${to}`);
  }

  /** `GET /v1/log/entries` (`end` exclusive; `end - start` at most `LOG_ENTRIES_MAX`, else 400). */
  logEntries(start: number, end: number): Promise<{ entries: string[] }> {
    return this.json('GET', `/v1/log/entries?start=${start}&end=${end}`);
  }

  /** `GET /.well-known/webfinger?resource=acct:<handle>@<server>`. */
  webfinger(resource: string): Promise<unknown> {
    return this.json('GET', `/.well-known/webfinger?resource=${encodeURIComponent(resource)}`);
  }

  private async json<T>(
    method: string,
    path: string,
    init: { body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
  ): Promise<T> {
    const headers: Record<string, string> = { Accept: 'application/json', ...init.headers };
    const body = init.rawBody ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let res: Response;
    try {
      res = await this.fetchImpl(`${this.baseUrl}${path}`, { method, headers, body });
    } catch (err) {
      // fetch's own failure is a TypeError (of another realm under a test runner's VM).
      if (err instanceof TypeError || (err as Error | undefined)?.name === 'TypeError') {
        throw new RelayUnreachableError(this.baseUrl, err);
      }
      throw err;
    }
    const text = await res.text();
    const parsed: unknown = text ? JSON.parse(text) : undefined;
    if (!res.ok) {
      const err = (parsed as { error?: { code?: string; message?: string } } | undefined)?.error;
      throw new RelayClientError(
        res.status,
        err?.code ?? 'unknown',
        err?.message ?? `HTTP ${res.status}`,
      );
    }
    return parsed as T;
  }
}
