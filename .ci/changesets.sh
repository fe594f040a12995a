#!/usr/bin/env bash
# Fails when a package changed since the last release and no changeset says so
# (`changeset status`; an empty changeset is enough for a change no user sees).
# Since what: the first argument (the GitHub workflow passes a pull request's base branch);
# without one (.ci/run on a clean clone of main, which has no pull request), the last
# release: the newest commit on main's first-parent line that changed a CHANGELOG.md, which
# is what `changeset version` writes. Each merge into main after it must bring a changeset.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

since="${1:-}"
if [[ -z $since ]]; then
  since="$(git log --first-parent -1 --format=%H -- 'CHANGELOG.md' '*/CHANGELOG.md' 2>/dev/null || true)"
  if [[ -z $since ]]; then
    echo "changesets: no release in this history (no CHANGELOG.md commit): nothing to check"
    exit 0
  fi
  echo "changesets: checking the changes since the last release, $(git log -1 --format='%h %s' "$since" | cut -c1-100)"
fi
pnpm exec changeset status --since="$since"
