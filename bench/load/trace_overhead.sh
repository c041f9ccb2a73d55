#!/bin/bash
# What tracing costs a ValidateToolCall (issue 27): one binary serving as
# two servers, "on" exporting every span (--trace_sample_ratio=1.0) to a
# live OTLP receiver (bench/load/otlp_receiver.py) and "off" with no
# --otlp_endpoint, both with --metrics_listen. In ROUNDS interleaved
# rounds (each MODES x {on, off}, the order flipping every round) the
# ALLOW mix runs DURATION seconds at CONCURRENCY against each; per run:
# p50/p99 and the server's CPU per call (utime+stime of the whole process
# from /proc/PID/stat, exporter thread included, read a second after the
# run so the exporter has sent its tail, divided by the calls). Prints
# every run, the median on/off ratios, and the spans the "on" server
# exported / dropped (toolgate_spans_*_total) against those the receiver
# got. Fails when "on" exported nothing or the receiver's count differs.
#
#   bench/load/trace_overhead.sh                     # 7 rounds x 5 s, -c opt
#   ROUNDS=1 DURATION=1 BAZEL_FLAGS= bench/load/trace_overhead.sh  # CI smoke
#   MODES=stateless CONCURRENCY=4 bench/load/trace_overhead.sh
#
# BAZEL_FLAGS (default "-c opt") builds the server and the load generator.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS="${ROUNDS:-7}"
DURATION="${DURATION:-5}"
CONCURRENCY="${CONCURRENCY:-1}"
MODES="${MODES:-stateless run}"
# shellcheck source=bench/load/lib.sh
source bench/load/lib.sh
declare -A PID METRICS
RECEIVER_PID=""
overhead_cleanup() {
  for pid in "${PID[@]}" $RECEIVER_PID; do kill -TERM "$pid" 2>/dev/null || true; done
  bench_cleanup
}
trap overhead_cleanup EXIT

# utime+stime of a process, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
metric() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import sys, urllib.request
text = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics").read().decode()
print(sum(float(l.split()[-1]) for l in text.splitlines()
          if l.startswith(sys.argv[2] + " ") or l.startswith(sys.argv[2] + "{")))
PY
}

/usr/bin/python3 bench/load/otlp_receiver.py "$WORK/otlp_port" \
  "$WORK/otlp_counts.json" 2>"$WORK/receiver.log" &
RECEIVER_PID=$!
wait_file "$WORK/otlp_port" "OTLP receiver"
for side in on off; do
  flags=()
  if [ "$side" = on ]; then
    flags=(--otlp_endpoint="127.0.0.1:$(cat "$WORK/otlp_port")"
      --trace_sample_ratio=1.0)
  fi
  METRICS[$side]="$(free_port)"
  "$WORK/toolgate" --listen=127.0.0.1:0 --port_file="$WORK/port.$side" \
    --metrics_listen="127.0.0.1:${METRICS[$side]}" "${flags[@]}" \
    2>"$WORK/server.$side.log" &
  PID[$side]=$!
  wait_file "$WORK/port.$side" "server ($side)"
  "$WORK/loadgen" --addr="127.0.0.1:$(cat "$WORK/port.$side")" --mix=mixed \
    --concurrency=1 --duration_seconds=1 >/dev/null
done
echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) commit=$(git rev-parse --short HEAD)" \
  "load=\"$(cut -d' ' -f1-3 /proc/loadavg)\" cores=$(nproc)" \
  "concurrency=$CONCURRENCY rounds=$ROUNDS x ${DURATION}s modes=\"$MODES\"" >&2
sleep 1
exported_before="$(metric "${METRICS[on]}" toolgate_spans_exported_total)"
dropped_before="$(metric "${METRICS[on]}" toolgate_spans_dropped_total)"
ticks="$(getconf CLK_TCK)"
for round in $(seq "$ROUNDS"); do
  sides="on off"
  [ $((round % 2)) -eq 0 ] && sides="off on"
  for mode in $MODES; do
    for side in $sides; do
      before="$(cpu_ticks "${PID[$side]}")"
      "$WORK/loadgen" --addr="127.0.0.1:$(cat "$WORK/port.$side")" \
        --mode="$mode" --mix=allow --concurrency="$CONCURRENCY" \
        --duration_seconds="$DURATION" --label="$round $side" |
        tail -n 1 >"$WORK/run.json"
      sleep 1  # The exporter's flush interval is 0.5 s.
      after="$(cpu_ticks "${PID[$side]}")"
      /usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["server_cpu_s"] = (int(sys.argv[3]) - int(sys.argv[2])) / int(sys.argv[4])
print(json.dumps(d))' "$WORK/run.json" "$before" "$after" "$ticks" \
        >>"$WORK/runs.jsonl"
    done
  done
done
# Until the exporter is idle (its queue drained: the count stops moving).
exported="$(metric "${METRICS[on]}" toolgate_spans_exported_total)"
for _ in $(seq 20); do
  sleep 0.7
  now="$(metric "${METRICS[on]}" toolgate_spans_exported_total)"
  [ "$now" = "$exported" ] && break
  exported="$now"
done
dropped="$(metric "${METRICS[on]}" toolgate_spans_dropped_total)"
off_exported="$(metric "${METRICS[off]}" toolgate_spans_exported_total)"
kill -TERM "$RECEIVER_PID"
wait "$RECEIVER_PID" || true
RECEIVER_PID=""
/usr/bin/python3 - "$WORK/runs.jsonl" "$WORK/otlp_counts.json" "$exported" \
  "$dropped" "$exported_before" "$dropped_before" "$off_exported" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
received = json.load(open(sys.argv[2]))
exported, dropped, exported0, dropped0, off_exported = map(float, sys.argv[3:8])
bad = [r for r in runs if r["errors"] or r.get("unexpected", 0)]
if bad:
    sys.exit("errors or unexpected decisions: " + json.dumps(bad[0]))
print("| round | mode | tracing | calls | p50 us | p99 us | server CPU us/call |")
print("|---|---|---|---|---|---|---|")
by = {}
for r in runs:
    rnd, side = r["label"].split()
    cpu = r["server_cpu_s"] * 1e6 / r["requests"]
    by.setdefault((r["mode"], rnd), {})[side] = (r, cpu)
    print(f"| {rnd} | {r['mode']} | {side} | {r['requests']} | "
          f"{r['latency_us']['p50']:.1f} | {r['latency_us']['p99']:.1f} | "
          f"{cpu:.1f} |")
print()
print("| mode | rounds | CPU/call on/off | p50 on/off | p99 on/off |")
print("|---|---|---|---|---|")
for mode in dict.fromkeys(m for m, _ in by):
    pairs = [v for (m, _), v in by.items() if m == mode]
    def med(f):
        return statistics.median(f(p["on"], p["off"]) for p in pairs)
    cpu = med(lambda on, off: on[1] / off[1] if off[1] else float("nan"))
    p50 = med(lambda on, off: on[0]["latency_us"]["p50"] / off[0]["latency_us"]["p50"])
    p99 = med(lambda on, off: on[0]["latency_us"]["p99"] / off[0]["latency_us"]["p99"])
    print(f"| {mode} | {len(pairs)} | {cpu:.3f} | {p50:.3f} | {p99:.3f} |")
print()
print(f"spans in the rounds: exported {exported - exported0:.0f}, dropped "
      f"{dropped - dropped0:.0f}; in all (warm-up included): exported "
      f"{exported:.0f}, dropped {dropped:.0f}, received by the receiver "
      f"{received['spans']} in {received['requests']} requests; "
      f"'off' server exported {off_exported:.0f}")
if exported - exported0 <= 0:
    sys.exit("the 'on' server exported no span in the rounds")
if received["spans"] != exported:
    sys.exit("the receiver's span count differs from the exported counter")
if off_exported:
    sys.exit("the 'off' server exported spans")
PY
