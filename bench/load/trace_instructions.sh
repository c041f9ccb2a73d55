#!/bin/bash
# What tracing costs a ValidateToolCall in instructions (issue 27): the
# server under callgrind, tracing off and then on (every span exported to a
# live receiver, bench/load/otlp_receiver.py), CALLS ALLOW calls at one in
# flight after a warm-up. Unlike CPU time (trace_overhead.sh, +-5 points
# between runs of the same code on a shared machine), these counts repeat
# within about 1%, so they can judge a change of a few hundred instructions
# per call. Per call, it prints:
#   request threads  inclusive cost of gRPC's callback runs
#                    (CallbackCallTag::StaticRun: every per-call
#                    instruction of toolgate, gRPC++ and protobuf there)
#   exporter thread  Tracer::Loop (batching, writing, sending the spans)
#   whole process    everything, gRPC's pollers and timers included (these
#                    run per wall second, so this column is the noisy one)
#
#   bench/load/trace_instructions.sh                # stateless, 1500 calls
#   MODE=run CALLS=3000 bench/load/trace_instructions.sh
#   CALLS=100 BAZEL_FLAGS= bench/load/trace_instructions.sh   # smoke
#   KEEP=/tmp/cg bench/load/trace_instructions.sh   # keep the dumps there,
#                                    for callgrind_annotate
set -euo pipefail
cd "$(dirname "$0")/../.."
CALLS="${CALLS:-1500}"
MODE="${MODE:-stateless}"
for tool in valgrind callgrind_control callgrind_annotate; do
  command -v "$tool" >/dev/null ||
    { echo "needs $tool (apt-get install valgrind)" >&2; exit 1; }
done
# shellcheck source=bench/load/lib.sh
source bench/load/lib.sh
RECEIVER_PID=""
instructions_cleanup() {
  [ -n "$RECEIVER_PID" ] && kill -TERM "$RECEIVER_PID" 2>/dev/null
  bench_cleanup
}
trap instructions_cleanup EXIT

/usr/bin/python3 bench/load/otlp_receiver.py "$WORK/otlp_port" \
  "$WORK/otlp_counts.json" 2>"$WORK/receiver.log" &
RECEIVER_PID=$!
wait_file "$WORK/otlp_port" "OTLP receiver"

# Inclusive cost of the first function matching $2, summed over the thread
# files of one dump ($1-01, $1-02, ...).
inclusive() {
  local sum=0 file n
  for file in "$1"-*; do
    n=$(callgrind_annotate --inclusive=yes --threshold=100 "$file" 2>/dev/null |
      grep -E "$2" | head -n 1 | awk '{ gsub(",", "", $1); print $1 }')
    sum=$((sum + ${n:-0}))
  done
  echo "$sum"
}
total() {
  local sum=0 file n
  for file in "$1"-*; do
    n=$(grep -E '^(summary|totals):' "$file" | head -n 1 | awk '{ print $2 }')
    sum=$((sum + ${n:-0}))
  done
  echo "$sum"
}

echo "| tracing | calls | request threads / call | exporter thread / call | whole process / call |"
echo "|---|---|---|---|---|"
for side in off on; do
  flags=()
  if [ "$side" = on ]; then
    flags=(--otlp_endpoint="127.0.0.1:$(cat "$WORK/otlp_port")"
      --trace_sample_ratio=1.0)
  fi
  rm -f "$WORK/port"
  valgrind --tool=callgrind --separate-threads=yes \
    --callgrind-out-file="$WORK/cg.$side.%p" \
    "$WORK/toolgate" --listen=127.0.0.1:0 --port_file="$WORK/port" \
    "${flags[@]}" 2>"$WORK/server.$side.log" &
  SERVER_PID=$!
  wait_file "$WORK/port" "server ($side)"
  addr="127.0.0.1:$(cat "$WORK/port")"
  "$WORK/loadgen" --addr="$addr" --mode="$MODE" --mix=allow --concurrency=1 \
    --max_requests=200 --duration_seconds=120 >/dev/null
  sleep 1.5  # The warm-up's spans leave before the counters are zeroed.
  callgrind_control -z "$SERVER_PID" >/dev/null 2>&1
  "$WORK/loadgen" --addr="$addr" --mode="$MODE" --mix=allow --concurrency=1 \
    --max_requests="$CALLS" --duration_seconds=120 | tail -n 1 >"$WORK/run.json"
  sleep 1.5  # The exporter's flush interval is 0.5 s: the run's tail leaves.
  callgrind_control -d "$SERVER_PID" >/dev/null 2>&1
  kill -TERM "$SERVER_PID"
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
  calls="$(/usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
if d["errors"] or d.get("unexpected", 0):
    sys.exit("errors or unexpected decisions: " + json.dumps(d))
print(d["requests"])' "$WORK/run.json")"
  # Only the dump taken after the run (callgrind_control -d) is counted.
  dump="$(ls "$WORK"/cg."$side".*.1-* 2>/dev/null | head -n 1 | sed 's/-[0-9]*$//')"
  [ -n "$dump" ] || { echo "no callgrind dump ($side)" >&2; exit 1; }
  request=$(inclusive "$dump" 'CallbackCallTag::StaticRun')
  exporter=$(inclusive "$dump" 'Tracer::Loop')
  whole=$(total "$dump")
  # A renamed function would make a column silently zero.
  if [ "$request" -eq 0 ] || { [ "$side" = on ] && [ "$exporter" -eq 0 ]; }; then
    echo "no instructions found under CallbackCallTag::StaticRun or" \
      "Tracer::Loop ($side): were they renamed?" >&2
    exit 1
  fi
  if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$dump"-* "$KEEP/"; fi
  echo "| $side | $calls | $((request / calls)) | $((exporter / calls)) | $((whole / calls)) |"
done
