#!/bin/bash
# Hot-path cost of --metrics_listen: interleaved A/B rounds of
# run_load.sh, without (A) and with (B) metrics, alternating which goes
# first, then the median of each figure per load over the rounds.
#
#   bench/load/metrics_ab.sh
#   ROUNDS=7 DURATION=10 bench/load/metrics_ab.sh
#
# Environment: ROUNDS (default 5), DURATION (default 5), CONCURRENCY
# (default "1 8"), RUNS (default "stateless:allow stateless:reject
# run:allow"), METRICS_PORT (default 19464), as run_load.sh otherwise.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS="${ROUNDS:-5}"
export DURATION="${DURATION:-5}" WARMUP="${WARMUP:-2}"
export CONCURRENCY="${CONCURRENCY:-1 8}"
export RUNS="${RUNS:-stateless:allow stateless:reject run:allow}"
METRICS_PORT="${METRICS_PORT:-19464}"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT

one() {  # one() A|B round
  local flags=""
  [ "$1" = "B" ] && flags="--metrics_listen=127.0.0.1:$METRICS_PORT"
  SERVER_FLAGS="$flags" RESULTS="$OUT/$1.$2.jsonl" \
    bench/load/run_load.sh >/dev/null 2>"$OUT/$1.$2.log" || {
    echo "run $1 round $2 failed:" >&2
    tail -n 20 "$OUT/$1.$2.log" >&2
    exit 1
  }
  echo "   round $2 $1 done (load $(cut -d' ' -f1 /proc/loadavg))" >&2
}

echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) nproc=$(nproc) rounds=$ROUNDS" \
  "duration=${DURATION}s load=\"$(cut -d' ' -f1-3 /proc/loadavg)\"" >&2
for r in $(seq "$ROUNDS"); do
  if [ $((r % 2)) -eq 1 ]; then one A "$r"; one B "$r"; else one B "$r"; one A "$r"; fi
done

python3 - "$OUT" "$ROUNDS" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
rows = {}
for side in "AB":
    for r in range(1, rounds + 1):
        for line in open(f"{out}/{side}.{r}.jsonl"):
            if not line.strip():
                continue
            d = json.loads(line)
            key = (d["mode"], d["mix"], d["concurrency"])
            cpu_us = 1e6 * d["server_cpu_s"] / max(d["requests"], 1)
            rows.setdefault(key, {}).setdefault(side, []).append(
                (d["qps"], d["latency_us"]["p50"], d["latency_us"]["p99"],
                 cpu_us, d["errors"], 100 * d["other_cpu_s"] / d["elapsed_s"]))
med = lambda xs, i: statistics.median(x[i] for x in xs)
print("| load | QPS off | QPS on | p50 us off/on | p99 us off/on |"
      " server CPU us/req off/on | CPU ratio | other CPU % (median) | errors |")
print("|---|---|---|---|---|---|---|---|---|")
for key in sorted(rows):
    a, b = rows[key]["A"], rows[key]["B"]
    ratio = med(b, 3) / med(a, 3)
    print(f"| {key[0]}:{key[1]}/c{key[2]} | {med(a,0):.0f} | {med(b,0):.0f} |"
          f" {med(a,1):.0f}/{med(b,1):.0f} | {med(a,2):.0f}/{med(b,2):.0f} |"
          f" {med(a,3):.1f}/{med(b,3):.1f} | {ratio:.3f} |"
          f" {med(a,5):.0f}/{med(b,5):.0f} |"
          f" {sum(x[4] for x in a)}/{sum(x[4] for x in b)} |")
PY
