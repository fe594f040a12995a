import {
  ApiError,
  AssetStoreClient,
  type AssetPage,
  type SearchQuery,
} from '../../src/client/index.js';
import { clearToken, getToken, setToken, type TokenKind } from './session.js';
import { askToken } from './token-dialog.js';

export { ApiError };
export type { Asset, AssetPage, DuplicatePage, Job, JobRequest } from '../../src/client/index.js';

/** The asset-store's API prefix (same origin): tus uploads and download links. */
export const API = '/api/v1/can/0';

/** Headers carrying the bearer token of this kind, when one was typed. */
export function authHeaders(kind: TokenKind = 'api'): Record<string, string> {
  const token = getToken(kind);
  return token ? { Authorization: `Bearer ${token}` } : {};
}

/**
 * A fetch with the session's token of this kind. A 401 asks for the token (again, if the
 * one held was refused) and sends the request once more.
 */
function tokenFetch(kind: TokenKind): (request: Request) => Promise<Response> {
  return async (request) => {
    for (;;) {
      const token = getToken(kind);
      // A copy each time: a body is read once, and a refused request is sent again.
      const attempt = request.clone();
      if (token) attempt.headers.set('Authorization', `Bearer ${token}`);
      const res = await fetch(attempt);
      if (res.status !== 401) return res;
      clearToken(kind);
      setToken(kind, await askToken(kind, token !== undefined));
    }
  };
}

/** The store's API (same origin) with the API token, asked for when the store wants one. */
export const store = new AssetStoreClient({ fetch: tokenFetch('api') });
/** The admin endpoints (jobs) with the admin token, asked for the first time one is needed. */
export const admin = new AssetStoreClient({ fetch: tokenFetch('admin') });

/** `GET /list` or `/search` with the filters of the page URL, as typed (the store checks them). */
export function fetchPage(
  endpoint: 'list' | 'search',
  params: URLSearchParams,
): Promise<AssetPage> {
  const query = Object.fromEntries(params) as SearchQuery;
  return endpoint === 'list' ? store.list(query) : store.search(query);
}

/** A thumbnail as an object URL (fetched, since an `<img>` cannot carry the token). */
export async function fetchThumb(
  hash: string,
  size: number,
  signal?: AbortSignal,
): Promise<string> {
  return URL.createObjectURL(await store.thumbnail(hash, size, size, signal));
}
