#!/bin/bash
# Latency ratios to grpc.health.v1.Health/Check on the same server, for a
# machine whose speed drifts: the mixes are interleaved in ROUNDS short
# rounds (health, then each of MIXES, each DURATION seconds, at
# CONCURRENCY) so that whatever else the machine does hits all of them
# alike, and each round's p50 and p99 are divided by that round's health
# figures. Prints every run and the median ratio over the rounds
# (bench/README.md, "Envoy ext_authz" and "Issue 10, second pass").
#
#   bench/load/authz_ratio.sh                      # ext_authz Check, ALLOW
#   ROUNDS=9 DURATION=5 CONCURRENCY=1 MODE=run bench/load/authz_ratio.sh
#   MIXES="allow text verdict" bench/load/authz_ratio.sh   # issue 10's mixes
#
# BAZEL_FLAGS (default "-c opt") builds the server and the load generator;
# the CI smoke passes "" (the suite's build) with ROUNDS=1 DURATION=1.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS="${ROUNDS:-7}"
DURATION="${DURATION:-5}"
CONCURRENCY="${CONCURRENCY:-1}"
MODE="${MODE:-stateless}"
MIXES="${MIXES:-authz allow}"
# shellcheck source=bench/load/lib.sh
source bench/load/lib.sh
("$WORK/toolgate" --listen=127.0.0.1:0 --port_file="$WORK/port" \
  2>"$WORK/server.log") &
SERVER_PID=$!
for _ in $(seq 100); do
  [ -s "$WORK/port" ] && break
  sleep 0.1
done
ADDR="127.0.0.1:$(cat "$WORK/port")"
echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) commit=$(git rev-parse --short HEAD)" \
  "load=\"$(cut -d' ' -f1-3 /proc/loadavg)\" mode=$MODE" \
  "concurrency=$CONCURRENCY rounds=$ROUNDS x ${DURATION}s mixes=\"health $MIXES\"" >&2
"$WORK/loadgen" --addr="$ADDR" --mix=mixed --concurrency=2 \
  --duration_seconds=3 >/dev/null
for round in $(seq "$ROUNDS"); do
  for mix in health $MIXES; do
    "$WORK/loadgen" --addr="$ADDR" --mode="$MODE" --mix="$mix" \
      --concurrency="$CONCURRENCY" --duration_seconds="$DURATION" \
      --label="round $round" | tail -n 1 >>"$WORK/runs.jsonl"
  done
done
/usr/bin/python3 - "$WORK/runs.jsonl" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
def lat(r, k):
    return r["latency_us"][k]
rounds = {}
for r in runs:
    rounds.setdefault(r["label"], {})[r["mix"]] = r
print("| round | mix | requests | errors | p50 us | p99 us | p50/health | p99/health |")
print("|---|---|---|---|---|---|---|---|")
ratios = {}
for label, by_mix in rounds.items():
    h = by_mix["health"]
    for mix, r in by_mix.items():
        p50 = lat(r, "p50") / lat(h, "p50")
        p99 = lat(r, "p99") / lat(h, "p99")
        if mix != "health":
            ratios.setdefault(mix, []).append((p50, p99))
        print(f"| {label} | {mix} | {r['requests']} | {r['errors']} | "
              f"{lat(r, 'p50'):.1f} | {lat(r, 'p99'):.1f} | "
              f"{p50:.2f} | {p99:.2f} |")
for mix, rs in ratios.items():
    print(f"median over {len(rs)} rounds: {mix} p50/health "
          f"{statistics.median(x for x, _ in rs):.2f}, p99/health "
          f"{statistics.median(y for _, y in rs):.2f}")
PY
