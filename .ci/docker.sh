#!/usr/bin/env bash
# Docker for CI, sourced by .ci/run. `docker_ready` makes a Docker engine answer: through
# docker-offline.sh when it is there (no Docker Hub: it starts dockerd and builds stand-ins of
# the base images the Dockerfiles and docker-compose.yml name), else any engine that already
# answers (GitHub's runners). Returns 1, having said why, when there is none.

DOCKER_OFFLINE="${DOCKER_OFFLINE:-../shared/tools/docker-offline.sh}"

# The base images this repository's containers start from (not its own, can-services/*, which
# docker-compose.yml names as the images it builds).
base_images() {
  {
    sed -n 's/^FROM \([^ ]*\).*/\1/p' services/*/Dockerfile
    sed -n 's/^ *image: *//p' docker-compose.yml
  } | grep -v '^can-services/' | sort -u
}

docker_ready() {
  if [[ -f "$DOCKER_OFFLINE" ]]; then
    bash "$DOCKER_OFFLINE" up || return 1
    # shellcheck disable=SC2046 # one argument per image name
    bash "$DOCKER_OFFLINE" base $(base_images) || return 1
    # No registry here for testcontainers' ryuk: containers are stopped by the tests themselves.
    export TESTCONTAINERS_RYUK_DISABLED="${TESTCONTAINERS_RYUK_DISABLED:-true}"
    export DOCKER_BUILDKIT=0
  elif ! docker info >/dev/null 2>&1; then
    echo "no Docker engine answers and no $DOCKER_OFFLINE: skipping the container steps"
    return 1
  fi
}

# Builds both services' images through docker-compose.yml: `docker compose` (v2) when the CLI
# has it, else Debian's `docker-compose` (v1), as test/compose-stack.ts picks.
compose_build() {
  if docker compose version >/dev/null 2>&1; then
    docker compose -p can-services-smoke build
  else
    docker-compose -p can-services-smoke build
  fi
}
