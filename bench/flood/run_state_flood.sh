#!/bin/bash
# Builds toolgate and the state flood driver, starts the server with its
# default limits (bench/with_server.sh) and floods its per-run and
# per-tenant state (issue 25: protected texts, approvals, waits). Prints the
# driver's JSON report and exits non-zero when any cap or the memory bound
# did not hold.
#
#   bench/flood/run_state_flood.sh [RUNS=1000] [APPROVALS=12000] [ARG_BYTES=40000] [WAITS=300]
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS="${1:-1000}"
APPROVALS="${2:-12000}"
ARG_BYTES="${3:-40000}"
WAITS="${4:-300}"
bazel build -c opt //server:toolgate //bench/flood:state_flood >&2
BIN="$(bazel info -c opt bazel-bin 2>/dev/null)"
exec bench/with_server.sh "$BIN/server/toolgate" "$BIN/bench/flood/state_flood" \
  --addr=@ADDR@ --server_pid=@PID@ --runs="$RUNS" --approvals="$APPROVALS" \
  --arg_bytes="$ARG_BYTES" --waits="$WAITS"
