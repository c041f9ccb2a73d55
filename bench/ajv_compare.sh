#!/bin/bash
# toolgate's schema engine vs AJV 8 on the SchemaStore corpora, one run,
# alternating the two engines per corpus. Prints ns/instance for
# bytes-to-verdict (parse + validate) and validate-only, the throughput
# ratio (AJV ns / toolgate ns: above 1 means toolgate is faster), and the
# geometric mean of the ratios over corpora.
#
#   bench/ajv_compare.sh [PASSES] [CORPUS...]
#
# Env: CORPORA_DIR (default: ../shared/bench/jsonschema-benchmark/schemas
# beside the repo), AJV_DIR (default /tmp/toolgate-ajv; npm installs ajv@8
# and ajv-formats there), NODE (default /usr/bin/node).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
passes="${1:-10}"
shift || true
corpora_dir="${CORPORA_DIR:-$repo/../shared/bench/jsonschema-benchmark/schemas}"
ajv_dir="${AJV_DIR:-/tmp/toolgate-ajv}"
node="${NODE:-/usr/bin/node}"

if [ ! -d "$ajv_dir/node_modules/ajv" ]; then
  mkdir -p "$ajv_dir"
  npm install --silent --no-audit --no-fund --prefix "$ajv_dir" ajv@8 ajv-formats@2 >&2
fi
ajv_version="$("$node" -p "require('$ajv_dir/node_modules/ajv/package.json').version")"

(cd "$repo" && bazel build -c opt //bench/schema:bytes_to_verdict >&2)
driver="$(mktemp -d)/bytes_to_verdict"
cp "$repo/bazel-out/k8-opt/bin/bench/schema/bytes_to_verdict" "$driver"

if [ $# -gt 0 ]; then corpora=("$@"); else
  mapfile -t corpora < <(ls "$corpora_dir")
fi

field() { sed -E "s/.*\"$1\":([0-9.]+).*/\1/" <<<"$2"; }

echo "AJV $ajv_version, node $("$node" --version), $passes passes, $(date -u +%FT%TZ)"
printf '%-24s %12s %12s %7s %12s %12s %7s %s\n' corpus tg_parse+val ajv_parse+val ratio \
  tg_validate ajv_validate ratio note
sum_pv=0; sum_v=0; count=0
for c in "${corpora[@]}"; do
  s="$corpora_dir/$c/schema.json"; i="$corpora_dir/$c/instances.jsonl"
  [ -f "$s" ] && [ -f "$i" ] || continue
  if ! tg="$("$driver" "$s" "$i" "$passes" 2>&1)"; then
    printf '%-24s toolgate refused the schema: %s\n' "$c" "$tg"; continue
  fi
  if ! ajv="$("$node" "$repo/bench/schema/ajv_bench.js" "$ajv_dir/node_modules" "$s" "$i" "$passes" 2>&1 | tail -1)"; then
    printf '%-24s AJV failed: %s\n' "$c" "$ajv"; continue
  fi
  tpv=$(field parse_validate_ns "$tg"); tv=$(field validate_ns "$tg")
  apv=$(field parse_validate_ns "$ajv"); av=$(field validate_ns "$ajv")
  note=""
  [ "$(field valid "$tg")" = "$(field valid "$ajv")" ] || \
    note="VERDICTS DIFFER: toolgate $(field valid "$tg") valid, AJV $(field valid "$ajv")"
  rpv=$(awk -v a="$apv" -v t="$tpv" 'BEGIN{printf "%.2f", a/t}')
  rv=$(awk -v a="$av" -v t="$tv" 'BEGIN{printf "%.2f", a/t}')
  printf '%-24s %12.0f %12.0f %7s %12.0f %12.0f %7s %s\n' "$c" "$tpv" "$apv" "$rpv" "$tv" "$av" "$rv" "$note"
  sum_pv=$(awk -v s="$sum_pv" -v r="$rpv" 'BEGIN{print s+log(r)}')
  sum_v=$(awk -v s="$sum_v" -v r="$rv" 'BEGIN{print s+log(r)}')
  count=$((count + 1))
done
awk -v a="$sum_pv" -v b="$sum_v" -v n="$count" 'BEGIN{
  printf "geomean over %d corpora: parse+validate %.2fx AJV throughput, validate-only %.2fx\n",
    n, exp(a/n), exp(b/n)}'
