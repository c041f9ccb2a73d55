#!/bin/bash
# Builds toolgate and the flood driver, starts the server with its default
# limits (bench/with_server.sh) and floods it: 100,000 distinct manifests
# through CreateSnapshot, then 10,000 open runs. Prints the driver's JSON
# report (errors, pinned run, RSS before/after, peak RSS) and exits non-zero
# when any check failed.
#
#   bench/flood/run_flood.sh [MANIFESTS] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
MANIFESTS="${1:-100000}"
RUNS="${2:-10000}"
bazel build -c opt //server:toolgate //bench/flood:flood >&2
BIN="$(bazel info -c opt bazel-bin 2>/dev/null)"
exec bench/with_server.sh "$BIN/server/toolgate" "$BIN/bench/flood/flood" \
  --addr=@ADDR@ --server_pid=@PID@ --manifests="$MANIFESTS" --runs="$RUNS"
