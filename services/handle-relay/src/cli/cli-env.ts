/** Environment variables the bundled CLI reads (they share the server's prefix). */
export const CLI_ENV = {
  url: 'HANDLE_RELAY_URL',
  keyFile: 'HANDLE_RELAY_KEY_FILE',
} as const;
