#!/bin/sh
# `pnpm start` once built (`pnpm run start:built`): both services in the foreground.
# Every step ends in `exec`, so no shell sits between pnpm and a service: a shell killed by
# Ctrl-C made pnpm report a failure although the service had stopped cleanly (exit 0).

# pnpm pipes the services' output to prefix it, so they cannot see the terminal: say it.
if [ -t 1 ]; then
  export ASSET_STORE_LOG_FORMAT="${ASSET_STORE_LOG_FORMAT:-pretty}"
  export HANDLE_RELAY_LOG_FORMAT="${HANDLE_RELAY_LOG_FORMAT:-pretty}"
fi
# Admin on from the first start: without admin_token, the token kept in
# services/asset-store/data/admin-token (written when absent; the service says where).
export ASSET_STORE_ADMIN_TOKEN_FILE="${ASSET_STORE_ADMIN_TOKEN_FILE:-data/admin-token}"
export HANDLE_RELAY_WEB_DIR="${HANDLE_RELAY_WEB_DIR:-web/dist}"
export HANDLE_RELAY_SIG_SERVER_URL="${HANDLE_RELAY_SIG_SERVER_URL:-http://localhost:8081}"
exec pnpm --parallel --filter "./services/*" start
