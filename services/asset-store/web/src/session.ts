/** Which credential: `api` for the data endpoints, `admin` for `/admin/*`. */
export type TokenKind = 'api' | 'admin';

// sessionStorage: typed once per browser session (tab), gone when it closes.
const KEY: Record<TokenKind, string> = {
  api: 'asset-console.api-token',
  admin: 'asset-console.admin-token',
};

/** The token typed this session, if any. */
export function getToken(kind: TokenKind): string | undefined {
  return sessionStorage.getItem(KEY[kind]) ?? undefined;
}

/** Keeps a token for the rest of the session. */
export function setToken(kind: TokenKind, token: string): void {
  sessionStorage.setItem(KEY[kind], token);
}

/** Forgets a token the service refused. */
export function clearToken(kind: TokenKind): void {
  sessionStorage.removeItem(KEY[kind]);
}
