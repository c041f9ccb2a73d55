#!/bin/bash
# What the shared Redis state store costs a decision in a run (issue 26,
# "Performance"): one binary serving as two servers, "memory" (the
# default store) and "redis" (--state_store=redis://127.0.0.1:PORT, a
# Debian redis-server started here in a temporary directory with
# --save '' --appendonly yes --appendfsync everysec), both with
# --metrics_listen. In ROUNDS interleaved rounds (the side order flipping
# every round), for each CONCURRENCY, MIX (default allow) runs in
# --mode=run for DURATION seconds against each side; per run: p50/p99.
# Around every redis-side run the script takes Redis's INFO cpu, then
# CONFIG RESETSTAT, and after it INFO stats/commandstats/cpu, giving per
# decision (the decisions the loadgen reports; each loadgen's OpenRun and
# CloseRun per worker and any untimed ResetRun are in the counts):
#   EVALSHA calls, and all commands (sum of cmdstat_*:calls; note that
#     Redis counts there the commands a script runs, TIME/HMGET/HSET/...,
#     so this is not round trips);
#   client reads (total_reads_processed: requests read from the servers'
#     sockets, a pipeline usually in one read) ~ round trips;
#   Redis CPU = delta(used_cpu_sys + used_cpu_user) / decisions, and
#     1 / that = the decisions/s one Redis core carries.
# After the rounds, one extra redis-side run per RT_MIXES entry (default
# "allow mixed reject"; empty for none; reject makes the loadgen
# ResetRun a run whose breaker is about to open) at concurrency 1 under
# redis-cli MONITOR, which tells the commands the servers sent (round
# trips, at most) from those run inside scripts ("lua"); these runs'
# CPU is MONITOR-inflated.
# Prints every run, the median redis/memory ratios of p50 and p99 per
# concurrency (issue target: x1.35 p50, x1.5 p99; not asserted) and the
# per-decision Redis figures. Fails on any loadgen error or unexpected
# decision, when Redis ran no EVALSHA during a redis-side run, or when
# client reads or MONITOR-counted sent commands per decision exceed
# MAX_RT (default 1.5) in any run.
#
#   bench/state/run.sh                                  # 7 rounds x 5 s, -c opt
#   ROUNDS=1 DURATION=1 BAZEL_FLAGS= bench/state/run.sh # CI smoke
#   CONCURRENCY=8 ROUNDS=3 bench/state/run.sh
#   REDIS_CPUS=1 TOOLGATE_CPUS=0 bench/state/run.sh    # Redis on its own core
#
# REDIS_CPUS / TOOLGATE_CPUS (taskset -c lists, default unpinned) pin
# redis-server, and the servers with the load generator, to CPUs: a Redis
# with a core of its own, as a production Redis has, instead of one
# competing with the toolgate servers and the loadgen for the same cores.
#
# BAZEL_FLAGS (default "-c opt") builds the server and the load generator.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS="${ROUNDS:-7}"
DURATION="${DURATION:-5}"
CONCURRENCY="${CONCURRENCY:-1 8}"
MIX="${MIX:-allow}"
RT_MIXES="${RT_MIXES-allow mixed reject}"  # Empty: none.
MAX_RT="${MAX_RT:-1.5}"
REDIS_SERVER="${REDIS_SERVER:-/usr/bin/redis-server}"
REDIS_CLI="${REDIS_CLI:-/usr/bin/redis-cli}"
REDIS_CPUS="${REDIS_CPUS:-}"
TOOLGATE_CPUS="${TOOLGATE_CPUS:-}"
# Command prefixes, not a shell function: a function run with & is a
# subshell, and $! must be the server itself (taskset execs it).
REDIS_PIN=()
TOOLGATE_PIN=()
[ -n "$REDIS_CPUS" ] && REDIS_PIN=(taskset -c "$REDIS_CPUS")
[ -n "$TOOLGATE_CPUS" ] && TOOLGATE_PIN=(taskset -c "$TOOLGATE_CPUS")
# shellcheck source=bench/load/lib.sh
source bench/load/lib.sh
declare -A PID PORT
REDIS_PID=""
state_cleanup() {
  for pid in "${PID[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  # The servers first: they hold connections to Redis.
  for pid in "${PID[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ -n "$REDIS_PID" ]; then kill -TERM "$REDIS_PID" 2>/dev/null || true; fi
  bench_cleanup
}
trap state_cleanup EXIT

REDIS_PORT="$(free_port)"
mkdir -p "$WORK/redis"
"${REDIS_PIN[@]}" "$REDIS_SERVER" --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$WORK/redis" \
  --save '' --appendonly yes --appendfsync everysec --daemonize no \
  --logfile "$WORK/redis.log" &
REDIS_PID=$!
rcli() { "$REDIS_CLI" -h 127.0.0.1 -p "$REDIS_PORT" "$@"; }
for _ in $(seq 100); do
  [ "$(rcli PING 2>/dev/null)" = PONG ] && break
  sleep 0.1
done
if [ "$(rcli PING 2>/dev/null)" != PONG ]; then
  echo "redis-server did not start" >&2
  cat "$WORK/redis.log" >&2 || true
  exit 1
fi

for side in memory redis; do
  flags=()
  [ "$side" = redis ] && flags=(--state_store="redis://127.0.0.1:$REDIS_PORT")
  "${TOOLGATE_PIN[@]}" "$WORK/toolgate" --listen=127.0.0.1:0 --port_file="$WORK/port.$side" \
    --metrics_listen="127.0.0.1:$(free_port)" "${flags[@]}" \
    2>"$WORK/server.$side.log" &
  PID[$side]=$!
  wait_file "$WORK/port.$side" "server ($side)"
  PORT[$side]="$(cat "$WORK/port.$side")"
  # Warm-up (not recorded).
  "${TOOLGATE_PIN[@]}" "$WORK/loadgen" --addr="127.0.0.1:${PORT[$side]}" --mode=run --mix="$MIX" \
    --concurrency=1 --duration_seconds=1 >/dev/null
done
echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) commit=$(git rev-parse --short HEAD)" \
  "load=\"$(cut -d' ' -f1-3 /proc/loadavg)\" cores=$(nproc)" \
  "redis_cpus=\"$REDIS_CPUS\" toolgate_cpus=\"$TOOLGATE_CPUS\"" \
  "concurrency=\"$CONCURRENCY\" mix=$MIX rounds=$ROUNDS x ${DURATION}s" \
  "redis=\"$("$REDIS_SERVER" --version | cut -d' ' -f3)\"" >&2

# run_one SIDE CONC MIX LABEL [monitor]: one loadgen run, its JSON line
# (with the Redis counters around it on the redis side) appended to
# runs.jsonl. With "monitor", a redis-cli MONITOR records every command
# Redis executes during the run (client-sent and, tagged "lua", those
# run inside scripts); such a run is not timed against memory.
run_one() {
  local side="$1" conc="$2" mix="$3" label="$4" monitor="${5:-}"
  local monitor_pid=""
  : >"$WORK/monitor.txt"
  if [ "$side" = redis ]; then
    rcli INFO cpu >"$WORK/info.before"
    rcli CONFIG RESETSTAT >/dev/null
    if [ -n "$monitor" ]; then
      # Not through rcli(): $! must be redis-cli itself, not a subshell.
      "$REDIS_CLI" -h 127.0.0.1 -p "$REDIS_PORT" MONITOR >"$WORK/monitor.txt" &
      monitor_pid=$!
      for _ in $(seq 50); do [ -s "$WORK/monitor.txt" ] && break; sleep 0.1; done
    fi
  fi
  "${TOOLGATE_PIN[@]}" "$WORK/loadgen" --addr="127.0.0.1:${PORT[$side]}" --mode=run --mix="$mix" \
    --concurrency="$conc" --duration_seconds="$DURATION" --label="$label" |
    tail -n 1 >"$WORK/run.json"
  if [ "$side" = redis ]; then
    rcli INFO stats commandstats cpu >"$WORK/info.after"
    if [ -n "$monitor_pid" ]; then
      sleep 0.3
      kill -TERM "$monitor_pid" 2>/dev/null || true
      wait "$monitor_pid" 2>/dev/null || true
    fi
  else
    : >"$WORK/info.before"
    : >"$WORK/info.after"
  fi
  /usr/bin/python3 - "$WORK/run.json" "$side" "$WORK/info.before" \
    "$WORK/info.after" "$WORK/monitor.txt" >>"$WORK/runs.jsonl" <<'PY'
import json, re, sys
def info(path):
    out = {}
    for line in open(path, errors="replace"):
        line = line.strip()
        if ":" in line and not line.startswith("#"):
            k, v = line.split(":", 1)
            out[k] = v
    return out
d = json.load(open(sys.argv[1]))
d["side"] = sys.argv[2]
if d["side"] == "redis":
    before, after = info(sys.argv[3]), info(sys.argv[4])
    calls = {}
    for k, v in after.items():
        if k.startswith("cmdstat_"):
            fields = dict(f.split("=", 1) for f in v.split(","))
            calls[k[len("cmdstat_"):]] = int(fields["calls"])
    d["redis_calls"] = calls
    # Read events on client sockets since CONFIG RESETSTAT: requests (a
    # pipeline usually arrives in one read) plus connection closes.
    d["redis_reads"] = int(after["total_reads_processed"])
    def cpu(i, suffix=""):
        return float(i["used_cpu_sys" + suffix]) + float(i["used_cpu_user" + suffix])
    d["redis_cpu_s"] = cpu(after) - cpu(before)
    if "used_cpu_sys_main_thread" in after:
        d["redis_main_cpu_s"] = cpu(after, "_main_thread") - cpu(before, "_main_thread")
    sent, lua = {}, {}
    line_re = re.compile(r'^[0-9.]+ \[[0-9]+ ([^\]]+)\] "([^"]+)"')
    for line in open(sys.argv[5], errors="replace"):
        m = line_re.match(line)
        if not m:
            continue
        where, cmd = m.group(1), m.group(2).lower()
        if where != "lua" and cmd in ("info", "monitor", "config"):
            continue  # This script's own.
        bucket = lua if where == "lua" else sent
        bucket[cmd] = bucket.get(cmd, 0) + 1
    if sent or lua:
        d["monitor_sent"], d["monitor_lua"] = sent, lua
print(json.dumps(d))
PY
}

for round in $(seq "$ROUNDS"); do
  sides="memory redis"
  [ $((round % 2)) -eq 0 ] && sides="redis memory"
  for conc in $CONCURRENCY; do
    for side in $sides; do
      run_one "$side" "$conc" "$MIX" "$round"
    done
  done
done
for mix in $RT_MIXES; do
  run_one redis 1 "$mix" "rt" monitor
done

/usr/bin/python3 - "$WORK/runs.jsonl" "$MAX_RT" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
max_rt = float(sys.argv[2])
OWN = {"config", "info"}  # The script's own CONFIG RESETSTAT / INFO.
bad = [r for r in runs if r["errors"] or r.get("unexpected", 0)]
if bad:
    sys.exit("errors or unexpected decisions: " + json.dumps(bad[0]))
def decisions(r):
    return sum(r["decisions"].values())
def commands(r):  # Every command Redis executed, those inside scripts too.
    return sum(n for c, n in r["redis_calls"].items() if c not in OWN)
def evalsha(r):
    return sum(n for c, n in r["redis_calls"].items() if c in ("evalsha", "eval"))
def per(a, n):
    return a / n if n else float("inf")
problems = []
print("| round | conc | mix | store | decisions | resets | p50 us | p99 us "
      "| Redis commands (all) /decision | EVALSHA /decision | client reads /decision "
      "| Redis CPU us/decision |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for r in runs:
    n = decisions(r)
    row = (f"| {r['label']} | {r['concurrency']} | {r['mix']} | {r['side']} | {n} "
           f"| {r['run_resets']} | {r['latency_us']['p50']:.1f} "
           f"| {r['latency_us']['p99']:.1f} |")
    if r["side"] == "redis":
        row += (f" {per(commands(r), n):.3f} | {per(evalsha(r), n):.4f} "
                f"| {per(r['redis_reads'], n):.4f} "
                f"| {per(r['redis_cpu_s'] * 1e6, n):.2f} |")
        where = f"run {r['label']} c={r['concurrency']} {r['mix']}"
        if evalsha(r) == 0 or n == 0:
            problems.append(f"{where}: Redis answered nothing ({commands(r)} "
                            f"commands, {evalsha(r)} EVALSHA, {n} decisions)")
        elif per(r["redis_reads"], n) > max_rt:
            problems.append(f"{where}: {per(r['redis_reads'], n):.3f} Redis "
                            f"requests read per decision > {max_rt}")
        if "monitor_sent" in r and per(sum(r["monitor_sent"].values()), n) > max_rt:
            problems.append(f"{where}: {per(sum(r['monitor_sent'].values()), n):.3f} "
                            f"commands sent to Redis per decision > {max_rt}")
    else:
        row += " - | - | - | - |"
    print(row)
print()
timed = [r for r in runs if r["label"] != "rt"]
print("Latency, median over rounds of the per-round redis/memory ratio "
      "(issue 26 target: x1.35 p50, x1.5 p99):")
print("| conc | rounds | p50 redis/memory | p99 redis/memory "
      "| redis p50 / p99 us (median) | memory p50 / p99 us (median) |")
print("|---|---|---|---|---|---|")
for conc in dict.fromkeys(r["concurrency"] for r in timed):
    by = {}
    for r in timed:
        if r["concurrency"] == conc:
            by.setdefault(r["label"], {})[r["side"]] = r
    pairs = [p for p in by.values() if len(p) == 2]
    def med(f):
        return statistics.median(f(p) for p in pairs)
    p50 = med(lambda p: p["redis"]["latency_us"]["p50"] / p["memory"]["latency_us"]["p50"])
    p99 = med(lambda p: p["redis"]["latency_us"]["p99"] / p["memory"]["latency_us"]["p99"])
    m = {s: (med(lambda p: p[s]["latency_us"]["p50"]), med(lambda p: p[s]["latency_us"]["p99"]))
         for s in ("redis", "memory")}
    print(f"| {conc} | {len(pairs)} | x{p50:.3f} | x{p99:.3f} "
          f"| {m['redis'][0]:.1f} / {m['redis'][1]:.1f} "
          f"| {m['memory'][0]:.1f} / {m['memory'][1]:.1f} |")
print()
print("Redis per decision, the redis-side runs of each kind pooled. 'all "
      "commands' is the sum of cmdstat_*:calls, which counts the commands a "
      "script runs (TIME, HMGET, HSET, ...) as well as the EVALSHA; 'client "
      "reads' is total_reads_processed (requests read from client sockets, "
      "plus connection closes and this script's own INFO). Every count "
      "includes each loadgen's OpenRun/CloseRun per worker and any ResetRun.")
print("| conc | mix | runs | decisions | resets | all commands | EVALSHA | client reads "
      "| Redis CPU s (sys+user) | CPU us/decision | decisions/s per Redis core "
      "| main-thread CPU us/decision |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
groups = {}
for r in runs:
    if r["side"] == "redis":
        groups.setdefault((r["concurrency"], r["mix"], r["label"] == "rt"), []).append(r)
arithmetic = []
for (conc, mix, rt), rs in groups.items():
    n = sum(decisions(r) for r in rs)
    if not n:
        continue
    cpu = sum(r["redis_cpu_s"] for r in rs)
    main = sum(r.get("redis_main_cpu_s", float("nan")) for r in rs)
    c = cpu / n
    kind = f"{mix}{' (MONITOR on)' if rt else ''}"
    print(f"| {conc} | {kind} | {len(rs)} | {n} | {sum(r['run_resets'] for r in rs)} "
          f"| {sum(commands(r) for r in rs)} ({sum(commands(r) for r in rs) / n:.3f}) "
          f"| {sum(evalsha(r) for r in rs)} ({sum(evalsha(r) for r in rs) / n:.4f}) "
          f"| {sum(r['redis_reads'] for r in rs)} ({sum(r['redis_reads'] for r in rs) / n:.4f}) "
          f"| {cpu:.3f} | {c * 1e6:.2f} | {per(1, c):.0f} | {main / n * 1e6:.2f} |")
    if not rt:
        arithmetic.append(f"  c={conc} {mix}: {cpu:.3f} s / {n} decisions = "
                          f"{c * 1e6:.2f} us per decision; 1 / {c * 1e6:.2f} us = "
                          f"{per(1, c):.0f} decisions/s on one Redis core")
print()
print("Redis CPU arithmetic (used_cpu_sys + used_cpu_user delta, the whole "
      "redis-server process, sockets' kernel time included):")
print("\n".join(arithmetic))
print()
mon = [r for r in runs if "monitor_sent" in r]
if mon:
    print("Commands by origin (redis-cli MONITOR over the whole run; 'sent' = "
          "by a toolgate server, i.e. at most one round trip each; 'lua' = "
          "run inside a script, no round trip):")
    print("| mix | decisions | resets | sent | sent/decision | sent by command "
          "| lua/decision | lua by command |")
    print("|---|---|---|---|---|---|---|---|")
    for r in mon:
        n = decisions(r)
        sent, lua = r["monitor_sent"], r["monitor_lua"]
        fmt = lambda d: " ".join(f"{k}={v}" for k, v in sorted(d.items(), key=lambda kv: -kv[1]))
        print(f"| {r['mix']} | {n} | {r['run_resets']} | {sum(sent.values())} "
              f"| {per(sum(sent.values()), n):.4f} | {fmt(sent)} "
              f"| {per(sum(lua.values()), n):.3f} | {fmt(lua)} |")
    print()
if problems:
    sys.exit("FAIL: " + "; ".join(problems))
print(f"OK: every redis-side run reached Redis; at most {max_rt} requests "
      "to Redis per decision")
PY
