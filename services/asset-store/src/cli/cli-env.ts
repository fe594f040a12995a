/**
 * Environment variables the bundled CLI reads. They share the server's `ASSET_STORE_`
 * prefix, so the server's config loader is told to leave them alone.
 */
export const CLI_ENV = {
  url: 'ASSET_STORE_URL',
  token: 'ASSET_STORE_TOKEN',
  stateFile: 'ASSET_STORE_STATE_FILE',
} as const;
