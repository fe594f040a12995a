#!/usr/bin/env bash
# Prints the path of promtool: the machine's, else the one in Debian's `prometheus` package,
# unpacked once into a cache folder (`apt-get download` and `dpkg-deb -x`: installing the
# package would also start a Prometheus server).
set -euo pipefail
if command -v promtool >/dev/null 2>&1; then
  command -v promtool
  exit 0
fi
dir="${PROMTOOL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/can-services/prometheus}"
bin="$dir/usr/bin/promtool"
if [[ ! -x "$bin" ]]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  # Another apt-get holding the lists' lock (the Chromium install) is waited for.
  for attempt in $(seq 1 30); do
    if (cd "$work" && apt-get download prometheus >&2 2>/dev/null) ||
      { apt-get update -qq >&2 && (cd "$work" && apt-get download prometheus >&2); }; then
      break
    fi
    echo "apt-get busy or failing (attempt $attempt of 30); retrying in 10 s" >&2
    sleep 10
  done
  mkdir -p "$dir"
  dpkg-deb -x "$work"/prometheus_*.deb "$dir"
fi
"$bin" --version >/dev/null
echo "$bin"
