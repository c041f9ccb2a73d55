#!/bin/bash
# Instructions the server executes per call, in user space (callgrind over
# the whole toolgate process: gRPC, protobuf, conversion and the engine),
# for Health/Check and each mix at one call in flight. Unlike the latency
# ratios (authz_ratio.sh), which move by +-10% between runs minutes apart
# on a shared machine, this figure repeats within a few per cent, so it can
# judge a change of a few thousand instructions. Given two binaries, both
# are measured the same way, one after the other (bench/README.md, "Issue
# 10, third pass").
#
#   bench/load/server_instructions.sh                      # this tree, -c opt
#   BINARIES="/tmp/old/toolgate /tmp/new/toolgate" bench/load/server_instructions.sh
#   MIXES="allow verdict" DURATION=5 bench/load/server_instructions.sh
#   MODE=run SERVER_FLAGS="--state_store=redis://127.0.0.1:6379" \
#     MIXES=allow bench/load/server_instructions.sh    # the Redis store's cost
#
# BAZEL_FLAGS (default "-c opt") builds the load generator, and the server
# when BINARIES is empty; the CI smoke passes "" with DURATION=1.
set -euo pipefail
cd "$(dirname "$0")/../.."
DURATION="${DURATION:-5}"
MIXES="${MIXES:-allow text verdict}"
MODE="${MODE:-stateless}"
# shellcheck disable=SC2206  # A list of flags.
SERVER_FLAGS=(${SERVER_FLAGS:-})
for tool in valgrind callgrind_control; do
  command -v "$tool" >/dev/null ||
    { echo "needs $tool (apt-get install valgrind)" >&2; exit 1; }
done
# shellcheck source=bench/load/lib.sh
source bench/load/lib.sh
if [ -z "${BINARIES:-}" ]; then BINARIES="$WORK/toolgate"; fi

# The events counted since the last zeroing, from the newest dump.
dumped_total() {
  local file
  file="$(ls -t "$WORK"/cg.out.* | head -n 1)"
  grep -E '^(summary|totals):' "$file" | head -n 1 | awk '{ print $2 }'
}

echo "| binary | mix | calls | instructions per call | over Health/Check |"
echo "|---|---|---|---|---|"
index=0
for server in $BINARIES; do
  index=$((index + 1))
  rm -f "$WORK"/cg.out.* "$WORK/port"
  valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out.%p" \
    "$server" --listen=127.0.0.1:0 --port_file="$WORK/port" \
    "${SERVER_FLAGS[@]}" 2>"$WORK/server.$index.log" &
  SERVER_PID=$!
  for _ in $(seq 600); do
    [ -s "$WORK/port" ] && break
    sleep 0.1
  done
  [ -s "$WORK/port" ] || { echo "server $server did not start" >&2; exit 1; }
  ADDR="127.0.0.1:$(cat "$WORK/port")"
  "$WORK/loadgen" --addr="$ADDR" --mix=mixed --concurrency=1 \
    --duration_seconds=2 >/dev/null
  health=""
  for mix in health $MIXES; do
    callgrind_control -z "$SERVER_PID" >/dev/null 2>&1
    "$WORK/loadgen" --addr="$ADDR" --mode="$MODE" --mix="$mix" \
      --concurrency=1 --duration_seconds="$DURATION" | tail -n 1 >"$WORK/run.json"
    callgrind_control -d "$SERVER_PID" >/dev/null 2>&1
    calls="$(/usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
if d["errors"] or d.get("unexpected", 0):
    sys.exit("errors or unexpected decisions: " + json.dumps(d))
print(d["requests"])' "$WORK/run.json")"
    per_call=$(($(dumped_total) / calls))
    [ -z "$health" ] && health=$per_call
    echo "| $index: $(basename "$server") | $mix | $calls | $per_call |" \
      "$((per_call - health)) |"
  done
  kill -TERM "$SERVER_PID"
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
done
