#!/bin/bash
# Issue 26: a flood of runs that are never closed leaves nothing behind in
# Redis once the idle TTL has passed (runs, cap leases and their zsets all
# expire). One redis-server and one toolgate (--state_store, an idle TTL of
# TTL seconds); RUNS OpenRun calls from 8 threads; then Redis's used_memory
# and key count are watched until back at the baseline taken before.
#
#   bench/state/flood.sh                       # 100,000 runs, TTL 5 s
#   RUNS=2000 TTL=2 BAZEL_FLAGS= bench/state/flood.sh   # CI smoke
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS="${RUNS:-100000}"
TTL="${TTL:-5}"
# shellcheck source=bench/load/lib.sh
source bench/load/lib.sh  # $WORK, free_port, the server built into $WORK.
# shellcheck disable=SC2086
bazel build $BAZEL_FLAGS //proto:toolgate_py_gen >&2
# shellcheck disable=SC2086
PROTO="$(bazel info $BAZEL_FLAGS bazel-bin 2>/dev/null)/proto"
REDIS=""
flood_cleanup() {
  if [ -n "$REDIS" ]; then kill -KILL "$REDIS" 2>/dev/null || true; fi
  bench_cleanup
}
trap flood_cleanup EXIT
RPORT=$(free_port)
redis-server --port "$RPORT" --bind 127.0.0.1 --dir "$WORK" --save '' \
  --appendonly no >"$WORK/redis.log" &
REDIS=$!
for _ in $(seq 100); do redis-cli -p "$RPORT" ping >/dev/null 2>&1 && break; sleep 0.05; done
"$WORK/toolgate" --listen=127.0.0.1:0 --port_file="$WORK/port" \
  --state_store="redis://127.0.0.1:$RPORT" --run_idle_ttl_seconds="$TTL" \
  --max_runs=$((RUNS + 10)) --max_runs_per_tenant=$((RUNS + 10)) \
  2>"$WORK/server.log" &
SERVER_PID=$!
wait_file "$WORK/port" "toolgate (see $WORK/server.log)"
/usr/bin/python3 bench/state/flood.py "$PROTO" \
  "127.0.0.1:$(cat "$WORK/port")" "$RPORT" "$RUNS" "$TTL"
