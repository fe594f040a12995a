#!/bin/sh
# `pnpm cli:install [npm options]`: builds, then puts the `asset-store` and `handle-relay`
# commands on PATH with npm's global install of both service folders (npm links a folder:
# the commands run this checkout's build, and `pnpm build` updates them). Options go to npm
# (`--prefix <dir>`). Undo: `npm uninstall --global asset-store handle-relay`.
set -e
root="$(cd "$(dirname "$0")/.." && pwd)"
tsc --build "$root"
# pnpm hands its own settings to scripts as npm_config_* (its global rc, its own keys): npm
# would take them as its own, and warn about each one it does not know.
for name in $(env | sed -n 's/^\(npm_config_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$name"; done
npm install --global "$@" "$root/services/asset-store" "$root/services/handle-relay"
bin="$(npm prefix --global "$@")/bin"
echo "asset-store and handle-relay are in $bin"
case ":$PATH:" in
  *":$bin:"*) ;;
  *) echo "$bin is not on PATH: add it (export PATH=\"$bin:\$PATH\")" ;;
esac
