#!/bin/bash
# Instructions per byte of call text read, for the pythonic_benchmark cases
# (callgrind, as bench/engine/instructions.sh measures the engine): the
# inclusive cost of the reader (ReadDeclaredFormat, or ParseStrictJson for
# the strict_json_* reference cases) at two run lengths, the difference
# divided by the difference in calls and by the case's text bytes.
# Instruction counts do not move with the machine's other load.
#
#   bench/formats/instructions.sh
#   CASES="BM_Read/pythonic_typical" bench/formats/instructions.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
CASES="${CASES:-BM_Read/pythonic_typical BM_Read/pythonic_long_string
  BM_Read/pythonic_many_calls BM_Read/pythonic_numbers
  BM_StrictJson/strict_json_typical BM_StrictJson/strict_json_many_calls}"
SHORT="${SHORT:-0.05}"
LONG="${LONG:-0.25}"
bazel build -c opt //bench/formats:pythonic_benchmark >&2
BIN="$(bazel info -c opt bazel-bin 2>/dev/null)/bench/formats/pythonic_benchmark"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

cost_and_calls() {  # CASE FUNCTION MIN_TIME -> "<instructions> <calls>"
  valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" "$BIN" \
    --benchmark_filter="^$1\$" --benchmark_min_time="$3" >/dev/null 2>&1
  callgrind_annotate --inclusive=yes --tree=caller "$WORK/cg.out" 2>/dev/null |
    /usr/bin/python3 -c '
import re, sys
for line in sys.stdin:
    if "< " in line and sys.argv[1] in line:
        m = re.match(r"\s*([\d,]+) .*\(([\d,]+)x\)", line)
        if m:
            print(m.group(1).replace(",", ""), m.group(2).replace(",", ""))
            sys.exit(0)
sys.exit("no call of " + sys.argv[1] + " found")' "$2"
}

echo "| case | text bytes | instructions per call | instructions per byte |"
echo "|---|---|---|---|"
for case in $CASES; do
  function="toolgate::extract::ReadDeclaredFormat("
  [[ "$case" == BM_StrictJson* ]] && function="toolgate::ParseStrictJson["
  bytes=$("$BIN" --benchmark_filter="^$case\$" --benchmark_min_time=0.01 \
    --benchmark_format=json 2>/dev/null | /usr/bin/python3 -c '
import json, sys
print(int(json.load(sys.stdin)["benchmarks"][0]["text_bytes"]))')
  read -r short_cost short_calls < <(cost_and_calls "$case" "$function" "$SHORT")
  read -r long_cost long_calls < <(cost_and_calls "$case" "$function" "$LONG")
  per_call=$(((long_cost - short_cost) / (long_calls - short_calls)))
  echo "| $case | $bytes | $per_call |" \
    "$(/usr/bin/python3 -c "print(f'{$per_call / $bytes:.1f}')") |"
done
