#!/bin/bash
# Soak test of the toolgate sidecar: builds the server and the soak driver,
# starts the server on a free 127.0.0.1 port, sends CALLS checked, mixed
# calls (ValidateToolCall ALLOW/REJECT/text, ExtractVerdict,
# ValidateToolOutput; runs opened and closed), samples the server's RSS,
# stops the server with SIGTERM and checks that it exited 0.
#
#   bench/soak/run_soak.sh            # 1,000,000 calls, -c opt
#   bench/soak/run_soak.sh 20000      # CI smoke: the current build config
#
# Fails (non-zero) on any error or mismatched answer, on server RSS growth
# after warm-up (10% of the calls) above MAX_GROWTH percent, when
# TIME_LIMIT ends the soak early, or when the server does not exit 0.
#
# Environment: BAZEL_FLAGS (default "-c opt" from 100,000 calls up, none
# below, so a CI smoke reuses the test build), WORKERS (default 4),
# CALLS_PER_RUN (default 50), MAX_GROWTH (default 10), TIME_LIMIT (seconds,
# default 7200), LABEL, RESULTS (append the JSON line to this file).
# See bench/README.md for the method and the recorded figures.
set -euo pipefail
cd "$(dirname "$0")/../.."

CALLS="${1:-1000000}"
if ! [[ "$CALLS" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 [CALLS]   (a positive integer)" >&2
  exit 2
fi
if [ -z "${BAZEL_FLAGS+set}" ]; then
  if [ "$CALLS" -ge 100000 ]; then BAZEL_FLAGS="-c opt"; else BAZEL_FLAGS=""; fi
fi
read -r -a flags <<<"$BAZEL_FLAGS"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

echo "== building (${BAZEL_FLAGS:-default config})" >&2
bazel build "${flags[@]}" //server:toolgate //bench/soak:soak >&2
BIN="$(bazel info "${flags[@]}" bazel-bin 2>/dev/null)"
# Private copies: a concurrent build cannot swap the binaries mid-soak.
cp "$BIN/server/toolgate" "$BIN/bench/soak/soak" "$WORK/"

echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) calls=$CALLS nproc=$(nproc)" \
  "commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
  "load=\"$(cut -d' ' -f1-3 /proc/loadavg)\"" >&2
start=$(date +%s)
rc=0
bench/with_server.sh "$WORK/toolgate" "$WORK/soak" \
  --addr=@ADDR@ --server_pid=@PID@ \
  --calls="$CALLS" \
  --workers="${WORKERS:-4}" \
  --calls_per_run="${CALLS_PER_RUN:-50}" \
  --max_rss_growth_percent="${MAX_GROWTH:-10}" \
  --time_limit_seconds="${TIME_LIMIT:-7200}" \
  --label="${LABEL:-run_soak $CALLS}" | tee "$WORK/result.json" || rc=$?
echo "== wall time $(($(date +%s) - start)) s, exit status $rc" >&2
if [ -n "${RESULTS:-}" ]; then cat "$WORK/result.json" >>"$RESULTS"; fi
exit "$rc"
