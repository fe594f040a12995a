import { clearToken, getToken, setToken, type TokenKind } from './session.js';
import { askToken } from './token-dialog.js';

/** The asset-store's API prefix (same origin). */
export const API = '/api/v1/can/0';

/** An asset metadata record (spec, "Asset metadata record"). */
export interface Asset {
  hash: string;
  mime_type: string;
  application?: string;
  user?: string;
  tags: string[];
  description?: string;
  human_filename?: string;
  human_path?: string;
  timestamp: number;
  is_trashed: boolean;
  is_corrupted: boolean;
}

/** A page of list or search. */
export interface Page {
  items: Asset[];
  pagination: { limit: number; offset: number; total: number };
}

/** A job of `/admin/jobs` (contract, "asset-store: jobs"). */
export interface Job {
  id: string;
  kind: 'verify' | 'rebuild';
  status: 'running' | 'done' | 'failed' | 'cancelled';
  started_at: number | string;
  finished_at?: number | string | null;
  total?: number | null;
  done?: number | null;
  bytes_total?: number | null;
  bytes_done?: number | null;
  eta_s?: number | null;
  result?: unknown;
}

/** An error answer of the service, with its status and its envelope's message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Headers carrying the bearer token of this kind, when one was typed. */
export function authHeaders(kind: TokenKind = 'api'): Record<string, string> {
  const token = getToken(kind);
  return token ? { Authorization: `Bearer ${token}` } : {};
}

/**
 * A request with the session's token. A 401 asks for the token (again, if the one held was
 * refused) and retries; every other error becomes an ApiError with the envelope's message.
 */
export async function request(
  path: string,
  init: RequestInit = {},
  kind: TokenKind = 'api',
): Promise<Response> {
  for (;;) {
    const res = await fetch(path, {
      ...init,
      headers: { ...authHeaders(kind), ...(init.headers as Record<string, string>) },
    });
    if (res.status === 401) {
      const refused = getToken(kind) !== undefined;
      clearToken(kind);
      setToken(kind, await askToken(kind, refused));
      continue;
    }
    if (!res.ok) throw new ApiError(res.status, await errorText(res));
    return res;
  }
}

async function errorText(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { error?: string };
    return body.error ?? `HTTP ${res.status}`;
  } catch {
    return `HTTP ${res.status}`;
  }
}

/** The `data` of a success envelope. */
export async function json<T>(path: string, init: RequestInit = {}, kind?: TokenKind): Promise<T> {
  const headers: Record<string, string> = init.body ? { 'Content-Type': 'application/json' } : {};
  const given = init.headers as Record<string, string> | undefined;
  const res = await request(path, { ...init, headers: { ...headers, ...given } }, kind);
  return ((await res.json()) as { data: T }).data;
}

/** `GET /list` or `/search` with these parameters. */
export function fetchPage(endpoint: 'list' | 'search', params: URLSearchParams): Promise<Page> {
  return json<Page>(`${API}/${endpoint}?${params.toString()}`);
}

/** `GET /asset/{hash}/meta`. */
export function fetchMeta(hash: string): Promise<Asset> {
  return json<Asset>(`${API}/asset/${hash}/meta`);
}

/** `PATCH /asset/{hash}` with new tags and description. */
export async function patchAsset(
  hash: string,
  change: { tags: string[]; description: string },
): Promise<void> {
  await json(`${API}/asset/${hash}`, { method: 'PATCH', body: JSON.stringify(change) });
}

/** Moves to trash (`DELETE`) or takes out of it (`POST …/restore`). */
export async function setTrashed(hash: string, trashed: boolean): Promise<void> {
  await json(trashed ? `${API}/asset/${hash}` : `${API}/asset/${hash}/restore`, {
    method: trashed ? 'DELETE' : 'POST',
  });
}

/** A thumbnail as an object URL (fetched, since an `<img>` cannot carry the token). */
export async function fetchThumb(
  hash: string,
  size: number,
  signal?: AbortSignal,
): Promise<string> {
  const res = await request(`${API}/asset/${hash}/thumb/${size}/${size}`, signal ? { signal } : {});
  return URL.createObjectURL(await res.blob());
}
