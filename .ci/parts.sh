#!/usr/bin/env bash
# The machine's parts the tests need, readied in the background of .ci/run: Chromium (the
# first test step needs it), a Docker engine with the base images, then both service images
# (built while the rest goes on) and the Ceph S3 gateway. Chromium, Docker and Ceph come one
# after the other: each may run apt-get, and dpkg takes one install at a time. Each writes a
# mark in RESULTS_DIR when done, which .ci/run waits for: chromium.done; s3.env and ceph.dir;
# docker.state ("ready" or "none") with docker.env; images.done, then e2e.json and
# containers.log. Steps that fail are named in parts.failed. The ops checks (promtool,
# actionlint) run after Chromium and print here.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
: "${RESULTS_DIR:?}"
# Seconds counted from .ci/run's start, as its own steps are.
SECONDS="${PARTS_STARTED_AT:-0}"
step() { printf '\n==> [%ds] (background) %s\n' "$SECONDS" "$*"; }
failed() { echo "$1" >>"$RESULTS_DIR/parts.failed"; }

# handle-relay's and the console's browser tests drive Debian's Chromium (without CI they
# skip when it is missing; under CI they fail). Another install holding dpkg's lock is waited for.
if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  step "installing chromium"
  updated=false
  for attempt in $(seq 1 30); do
    if [[ "$updated" == false ]] && apt-get update -qq; then updated=true; fi
    if [[ "$updated" == true ]] &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; then
      break
    fi
    echo "apt-get busy or failing (attempt $attempt of 30); retrying in 10 s" >&2
    sleep 10
  done
  command -v chromium >/dev/null 2>&1 || failed chromium
fi
touch "$RESULTS_DIR/chromium.done"

# promtool (alert rules, the Prometheus config, the dashboards' queries) and actionlint (the
# GitHub workflows, the release one included): after Chromium, as promtool comes from Debian.
step "promtool and actionlint (.ci/ops-checks.sh)"
bash .ci/ops-checks.sh || failed ops-checks

# --- containers (issue 28): a Docker engine and the base images (.ci/docker.sh), then
# both services' images, built once through docker-compose.yml (which names them as the
# testcontainers module expects, can-services/<service>:local). The build is the longest part
# and needs no apt-get on this host, so it goes on while Ceph installs and the tests run.
source .ci/docker.sh
step "Docker engine and base images"
build_pid=
if docker_ready; then
  # The image build and the compose smoke run beside the test steps, which are the run's
  # critical path: the engine (and every container it starts from now on) yields the CPU
  # to them. On a fresh machine the build took 376 s of both cores while the tests waited.
  # shellcheck disable=SC2046 # one argument per process id
  renice -n 10 -p $(pgrep -x dockerd) $(pgrep -x containerd) >/dev/null 2>&1 || true
  export -p | grep -E ' (TESTCONTAINERS_RYUK_DISABLED|DOCKER_BUILDKIT)=' >"$RESULTS_DIR/docker.env"
  echo ready >"$RESULTS_DIR/docker.state.part"
  step "building the images (docker-compose.yml), then the compose smoke and the testcontainers module, in the background"
  (
    started=$SECONDS
    if compose_build >"$RESULTS_DIR/build.log" 2>&1; then
      echo "images built in $((SECONDS - started)) s"
      docker image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' 'can-services/*'
      touch "$RESULTS_DIR/images.done"
      # The e2e specs start the images just built (TEST_PREBUILT_IMAGES) and mostly wait on
      # containers, so they go on beside the test steps.
      started=$SECONDS
      rc=0
      TEST_PREBUILT_IMAGES=1 pnpm test:e2e --json --outputFile="$RESULTS_DIR/e2e.json" \
        --forceExit >"$RESULTS_DIR/containers.log" 2>&1 || rc=$?
      echo "containers step (compose smoke, testcontainers module): exit $rc after $((SECONDS - started)) s"
      ((rc == 0)) || failed containers
    else
      tail -n 50 "$RESULTS_DIR/build.log"
      failed containers
    fi
  ) &
  build_pid=$!
else
  : >"$RESULTS_DIR/docker.env"
  echo none >"$RESULTS_DIR/docker.state.part"
fi


# --- S3 (issue 27): the asset-store's S3 suites need an S3 server. Without S3_ENDPOINT, the
# RADOS Gateway of a one-node Ceph cluster (Debian's packages, ../shared/tools/ceph-s3.sh) when
# the tool is there; it prints the S3_* variables the test harness reads. Without either, the
# harness tries a testcontainers MinIO, else skips those suites with a message.
ceph_tool="${CEPH_S3_TOOL:-../shared/tools/ceph-s3.sh}"
if [[ -z "${S3_ENDPOINT:-}" && -x "$ceph_tool" ]]; then
  step "starting the Ceph S3 gateway (asset-store S3 suites)"
  # A first start now and then fails at once (its OSD finds a "wrong fsid"), and under the
  # load of the image builds all three tries on one port once failed: up to four tries, each
  # on a fresh folder and its own ports (S3 and, 1000 above, the monitor's), so none meets
  # what an earlier one left. What a failed try printed is kept beside the results.
  for attempt in 1 2 3 4; do
    ceph_dir="$(mktemp -d)"
    echo "$ceph_dir" >"$RESULTS_DIR/ceph.dir"
    ceph_port=$((${CEPH_S3_PORT:-7480} + (attempt - 1) * 10))
    if "$ceph_tool" start "$ceph_dir" "$ceph_port" >"$RESULTS_DIR/s3.env.part" \
      2>"$RESULTS_DIR/ceph-try-$attempt.log"; then
      mv "$RESULTS_DIR/s3.env.part" "$RESULTS_DIR/s3.env"
      break
    fi
    echo "the Ceph S3 gateway did not start (try $attempt of 4):" >&2
    tail -n 5 "$RESULTS_DIR/s3.env.part" "$RESULTS_DIR/ceph-try-$attempt.log" >&2 || true
    "$ceph_tool" stop "$ceph_dir" || true
    rm -f "$RESULTS_DIR/ceph.dir"
    sleep 5
  done
  [[ -e "$RESULTS_DIR/s3.env" ]] || failed ceph-s3
fi

# Docker's state is told once the S3 gateway is up too: the Node 24 step needs both.
mv "$RESULTS_DIR/docker.state.part" "$RESULTS_DIR/docker.state"
if [[ -n $build_pid ]]; then wait "$build_pid"; fi
