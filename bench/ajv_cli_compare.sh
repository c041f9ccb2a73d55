#!/bin/bash
# `toolgatectl schema check` vs the same job done by AJV 8 in Node
# (bench/schema/ajv_cli.js: JSON.parse + compiled validate per line), as
# whole processes on the SchemaStore corpora: bytes in, one verdict line
# out per instance. Each corpus's instances are repeated to at least
# MIN_LINES lines; each side runs RUNS times, alternating, and the fastest
# run counts. Prints ms per side, the ratio (AJV ms / toolgate ms: above 1
# means toolgate is faster) and the geometric mean over corpora. Process
# start-up (Node ~40 ms) is included, as a user of either CLI pays it.
#
#   bench/ajv_cli_compare.sh [CORPUS...]
#
# Env: CORPORA_DIR (default ../shared/bench/jsonschema-benchmark/schemas
# beside the repo), AJV_DIR (default /tmp/toolgate-ajv; npm installs ajv@8
# there, a bench-only folder), NODE (default /usr/bin/node), MIN_LINES
# (default 20000), RUNS (default 3), TOOLGATECTL (a prebuilt binary; default:
# build //client:toolgatectl with -c opt).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
corpora_dir="${CORPORA_DIR:-$repo/../shared/bench/jsonschema-benchmark/schemas}"
ajv_dir="${AJV_DIR:-/tmp/toolgate-ajv}"
node="${NODE:-/usr/bin/node}"
min_lines="${MIN_LINES:-20000}"
runs="${RUNS:-3}"

if [ ! -d "$ajv_dir/node_modules/ajv" ]; then
  mkdir -p "$ajv_dir"
  npm install --silent --no-audit --no-fund --prefix "$ajv_dir" ajv@8 >&2
fi
ajv_version="$("$node" -p "require('$ajv_dir/node_modules/ajv/package.json').version")"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [ -n "${TOOLGATECTL:-}" ]; then
  cp "$TOOLGATECTL" "$work/toolgatectl"
else
  (cd "$repo" && bazel build -c opt //client:toolgatectl >&2)
  cp "$repo/bazel-out/k8-opt/bin/client/toolgatectl" "$work/toolgatectl"
fi

if [ $# -gt 0 ]; then corpora=("$@"); else
  mapfile -t corpora < <(ls "$corpora_dir")
fi

now_ns() { date +%s%N; }
# time_ms CMD...: wall ms of one run, stdout to $work/out.
time_ms() {
  local t0 t1
  t0=$(now_ns)
  "$@" <"$work/in.jsonl" >"$work/out" 2>/dev/null || true
  t1=$(now_ns)
  echo $(((t1 - t0) / 1000))
}

echo "AJV $ajv_version, node $("$node" --version), >= $min_lines lines per corpus, best of $runs, $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-24s %8s %10s %10s %7s %s\n' corpus lines toolgate_ms ajv_ms ratio note
sum=0; count=0
for c in "${corpora[@]}"; do
  s="$corpora_dir/$c/schema.json"; i="$corpora_dir/$c/instances.jsonl"
  [ -f "$s" ] && [ -f "$i" ] || continue
  : >"$work/in.jsonl"
  while [ "$(wc -l <"$work/in.jsonl")" -lt "$min_lines" ]; do
    cat "$i" >>"$work/in.jsonl"
  done
  lines=$(wc -l <"$work/in.jsonl")
  if ! "$work/toolgatectl" schema check --schema "$s" <"$work/in.jsonl" >"$work/tg.out" 2>"$work/tg.err" &&
     [ ! -s "$work/tg.out" ]; then
    printf '%-24s toolgate refused the schema: %s\n' "$c" "$(head -c 120 "$work/tg.err")"; continue
  fi
  if ! "$node" "$repo/bench/schema/ajv_cli.js" "$ajv_dir/node_modules" "$s" \
      <"$work/in.jsonl" >"$work/ajv.out" 2>"$work/ajv.err"; then
    printf '%-24s AJV refused the schema: %s\n' "$c" \
      "$(grep -m1 -E 'Error' "$work/ajv.err" | head -c 120)"
    continue
  fi
  note=""
  tg_valid=$(grep -c '^{"valid":true}$' "$work/tg.out" || true)
  ajv_valid=$(grep -c '^{"valid":true}$' "$work/ajv.out" || true)
  [ "$tg_valid" = "$ajv_valid" ] || note="VERDICTS DIFFER: toolgate $tg_valid valid, AJV $ajv_valid"
  best_tg=""; best_ajv=""
  for _ in $(seq "$runs"); do
    t=$(time_ms "$work/toolgatectl" schema check --schema "$s")
    [ -z "$best_tg" ] || [ "$t" -lt "$best_tg" ] && best_tg=$t
    t=$(time_ms "$node" "$repo/bench/schema/ajv_cli.js" "$ajv_dir/node_modules" "$s")
    [ -z "$best_ajv" ] || [ "$t" -lt "$best_ajv" ] && best_ajv=$t
  done
  ratio=$(awk -v a="$best_ajv" -v t="$best_tg" 'BEGIN{printf "%.2f", a/t}')
  printf '%-24s %8d %10.1f %10.1f %7s %s\n' "$c" "$lines" "$(awk -v x="$best_tg" 'BEGIN{print x/1000}')" \
    "$(awk -v x="$best_ajv" 'BEGIN{print x/1000}')" "$ratio" "$note"
  sum=$(awk -v s="$sum" -v r="$ratio" 'BEGIN{print s+log(r)}')
  count=$((count + 1))
done
[ "$count" -gt 0 ] && awk -v s="$sum" -v n="$count" \
  'BEGIN{printf "geomean ratio (AJV/toolgate) over %d corpora: %.2f\n", n, exp(s/n)}'
