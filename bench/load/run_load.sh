#!/bin/bash
# Measures the toolgate sidecar over gRPC on loopback: builds the server and
# the load generator with -c opt, starts the server on a free 127.0.0.1
# port, warms it up, runs the measured loads, stops the server with SIGTERM
# and prints a table (and the raw JSON lines). The table's p50/health and
# p99/health columns divide each row's p50 and p99 by those of the health
# row (grpc.health.v1.Health/Check) at the same concurrency: issue 10 states
# its goals as these ratios.
#
#   bench/load/run_load.sh
#   DURATION=5 CONCURRENCY="1 4" bench/load/run_load.sh
#   PIN=1 bench/load/run_load.sh     # server on CPU 0, loadgen on CPU 1
#
# Environment: DURATION (seconds per run, default 10), WARMUP (default 3),
# CONCURRENCY (default "1 2 8"), RUNS (mode:mix pairs, default
# "stateless:health stateless:allow stateless:reject stateless:text
# stateless:verdict run:allow"; keep a health run in RUNS for the ratio
# columns), PIN,
# RESULTS (also keep the JSON lines in this file), COMMIT (printed when
# the tree is not a git checkout, e.g. a `git archive` export),
# SERVER_FLAGS (extra server flags, e.g. --metrics_listen=127.0.0.1:9464;
# bench/load/metrics_ab.sh uses it), and for
# shared machines QUIET=1: wait for an idle machine before each run and
# redo a run (up to TRIES, default 3) during which other processes used
# more than MAX_OTHER percent of one core (default 20). The table's "other
# CPU" column shows what others used during each kept run either way.
#
# Client and server share this machine's cores: the numbers are for the
# pair, not for the server alone. See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."

DURATION="${DURATION:-10}"
WARMUP="${WARMUP:-3}"
CONCURRENCY="${CONCURRENCY:-1 2 8}"
RUNS="${RUNS:-stateless:health stateless:allow stateless:reject stateless:text stateless:verdict run:allow}"
PIN="${PIN:-0}"
QUIET="${QUIET:-0}"
MAX_OTHER="${MAX_OTHER:-20}"
TRIES="${TRIES:-3}"

WORK="$(mktemp -d)"
RESULTS="${RESULTS:-$WORK/results.jsonl}"
SERVER_PID=""

stop_server() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID"
    local rc=0
    wait "$SERVER_PID" || rc=$?
    echo "server stopped with SIGTERM, exit status $rc" >&2
  fi
  SERVER_PID=""
}
trap 'stop_server; rm -rf "$WORK"' EXIT


echo "== building (-c opt)" >&2
bazel build -c opt //server:toolgate //bench/load:loadgen >&2
BIN="$(bazel info -c opt bazel-bin 2>/dev/null)"
# Private copies: a concurrent build by someone else cannot swap the
# binaries in the middle of a measurement.
cp "$BIN/server/toolgate" "$BIN/bench/load/loadgen" "$WORK/"

echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) nproc=$(nproc)" \
  "cpu=\"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)\"" \
  "commit=$(git rev-parse --short HEAD 2>/dev/null || echo "${COMMIT:-unknown}")" \
  "pin=$PIN" \
  "load=\"$(cut -d' ' -f1-3 /proc/loadavg)\"" >&2

# exec, so that $! is the server itself and SIGTERM reaches it (not a
# subshell that would leave the server orphaned).
(
  # shellcheck disable=SC2206  # SERVER_FLAGS is a list of flags.
  cmd=("$WORK/toolgate" --listen=127.0.0.1:0 --port_file="$WORK/port"
    ${SERVER_FLAGS:-})
  if [ "$PIN" = "1" ]; then exec taskset -c 0 "${cmd[@]}"; fi
  exec "${cmd[@]}"
) 2>"$WORK/server.log" &
SERVER_PID=$!
for _ in $(seq 100); do
  [ -s "$WORK/port" ] && break
  sleep 0.1
done
if [ ! -s "$WORK/port" ]; then
  echo "server did not start:" >&2
  cat "$WORK/server.log" >&2
  exit 1
fi
ADDR="127.0.0.1:$(cat "$WORK/port")"
echo "== server on $ADDR (pid $SERVER_PID)" >&2

loadgen() {
  if [ "$PIN" = "1" ]; then
    taskset -c 1 "$WORK/loadgen" --addr="$ADDR" "$@"
  else
    "$WORK/loadgen" --addr="$ADDR" "$@"
  fi
}

echo "== warm-up ${WARMUP}s (discarded)" >&2
loadgen --mix=mixed --concurrency=2 --duration_seconds="$WARMUP" >/dev/null

# CPU accounting, in clock ticks: the server's own (from /proc/PID/stat)
# and the whole machine's busy time (from /proc/stat). Busy time minus the
# server's and the client's is what other processes took during a run.
server_ticks() { awk '{print $14 + $15}' "/proc/$SERVER_PID/stat"; }
busy_ticks() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }
TCK="$(getconf CLK_TCK)"

# QUIET=1: wait until the machine is idle (under 15% of one core for 5 s,
# our idle server included) before each run, up to 10 minutes.
wait_idle() {
  local b0 b1
  for _ in $(seq 120); do
    b0="$(busy_ticks)"
    sleep 5
    b1="$(busy_ticks)"
    [ $(((b1 - b0) * 100 / (5 * TCK))) -lt 15 ] && return 0
  done
  echo "   machine still busy after 10 minutes; measuring anyway" >&2
}

# One measured run; leaves its JSON line, with CPU accounting added, in
# $WORK/row.
measure() {
  local run="$1" c="$2" s0 b0 s1 b1 out rc=0
  s0="$(server_ticks)"
  b0="$(busy_ticks)"
  out="$(loadgen --mode="${run%%:*}" --mix="${run##*:}" --concurrency="$c" \
    --duration_seconds="$DURATION" --label="$run/c$c")" || rc=1
  s1="$(server_ticks)"
  b1="$(busy_ticks)"
  echo "$out" | head -n 1 >&2
  echo "$out" | tail -n 1 | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
tck = float(sys.argv[1])
d["server_cpu_s"] = round((int(sys.argv[3]) - int(sys.argv[2])) / tck, 2)
d["machine_busy_s"] = round((int(sys.argv[5]) - int(sys.argv[4])) / tck, 2)
d["other_cpu_s"] = round(max(
    d["machine_busy_s"] - d["server_cpu_s"] - d["client_cpu_s"], 0), 2)
print(json.dumps(d))' "$TCK" "$s0" "$s1" "$b0" "$b1" >"$WORK/row"
  return "$rc"
}

: >"$RESULTS"
failed=0
for run in $RUNS; do
  for c in $CONCURRENCY; do
    for try in $(seq "$TRIES"); do
      [ "$QUIET" = "1" ] && wait_idle
      measure "$run" "$c" || failed=1
      other="$(tail -n 1 "$WORK/row" | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
print(int(100 * r["other_cpu_s"] / r["elapsed_s"]))')"
      if [ "$QUIET" != "1" ] || [ "$other" -le "$MAX_OTHER" ]; then break; fi
      echo "   other processes used ${other}% of a core; retrying ($try/$TRIES)" >&2
    done
    cat "$WORK/row" >>"$RESULTS"
  done
done
stop_server

python3 - "$RESULTS" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
# The baseline of each concurrency: its first health row (whatever the
# mode; the health mix ignores runs).
health = {}
for r in rows:
    if r["mix"] == "health":
        health.setdefault(r["concurrency"], r)
def ratio(r, q):
    h = health.get(r["concurrency"])
    if h is None or h is r or not h["latency_us"][q]:
        return ""
    return f"{r['latency_us'][q] / h['latency_us'][q]:.2f}"
head = ("mode", "mix", "conc", "requests", "errors", "QPS",
        "p50 us", "p90 us", "p99 us", "max us", "p50/health", "p99/health",
        "server CPU", "client CPU", "other CPU", "decisions")
print("| " + " | ".join(head) + " |")
print("|" + "|".join("---" for _ in head) + "|")
for r in rows:
    lat = r["latency_us"]
    # Verdict and health rows have outcomes (PASS, SERVING) instead.
    counts = dict(r["decisions"], **r.get("outcomes", {}))
    dec = " ".join(f"{k}={v}" for k, v in counts.items() if v)
    if r["unexpected"]:
        dec += f" unexpected={r['unexpected']}"
    t = r["elapsed_s"]
    other = r["other_cpu_s"]
    # CPU as % of one core over the run (the machine has nproc * 100%).
    pct = lambda s: f"{100 * s / t:.0f}%"
    cells = (r["mode"], r["mix"], r["concurrency"], r["requests"], r["errors"],
             f"{r['qps']:.0f}", lat["p50"], lat["p90"], lat["p99"], lat["max"],
             ratio(r, "p50"), ratio(r, "p99"),
             pct(r["server_cpu_s"]), pct(r["client_cpu_s"]),
             pct(other), dec)
    print("| " + " | ".join(str(c) for c in cells) + " |")
PY
echo
echo "raw JSON lines:"
cat "$RESULTS"
exit "$failed"
