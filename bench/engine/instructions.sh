#!/bin/bash
# Instructions per call of the engine (callgrind over engine_benchmark), for
# each case named: the inclusive cost of Engine::ValidateToolCall or
# Engine::ExtractVerdict at two run lengths, the difference divided by the
# difference in calls, so one-time costs (schema compiles, first calls)
# cancel. Repeats within ~1%, where wall-clock time on a shared machine
# moves by 10% (bench/README.md, "Issue 10, third pass"). Given several
# engine_benchmark binaries, each is measured the same way.
#
#   bench/engine/instructions.sh                         # this tree, -c opt
#   CASES="BM_ValidateToolCall/openai_allow" bench/engine/instructions.sh
#   BINARIES="old/engine_benchmark new/engine_benchmark" bench/engine/instructions.sh
#
# SHORT and LONG (seconds of --benchmark_min_time under valgrind, default
# 0.2 and 1) set the two run lengths; BAZEL_FLAGS (default "-c opt") the
# build when BINARIES is empty.
set -euo pipefail
cd "$(dirname "$0")/../.."
CASES="${CASES:-BM_ValidateToolCall/openai_allow BM_ValidateToolCall/anthropic_allow
  BM_ValidateToolCall/mcp_allow BM_ValidateToolCall/text_tag
  BM_ValidateToolCall/text_fence_reasoning BM_ValidateToolCall/text_react
  BM_ValidateToolCall/text_bare BM_ValidateToolCall/format_hermes
  BM_ValidateToolCall/format_mistral BM_ValidateToolCall/format_llama3_json
  BM_ValidateToolCall/format_pythonic BM_ValidateToolCall/format_granite
  BM_ValidateToolCall/format_deepseek_v3 BM_ExtractVerdict/strict}"
SHORT="${SHORT:-0.2}"
LONG="${LONG:-1}"
BAZEL_FLAGS="${BAZEL_FLAGS--c opt}"
for tool in valgrind callgrind_annotate; do
  command -v "$tool" >/dev/null ||
    { echo "needs $tool (apt-get install valgrind)" >&2; exit 1; }
done
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
if [ -z "${BINARIES:-}" ]; then
  # shellcheck disable=SC2086  # BAZEL_FLAGS is a list of flags.
  bazel build $BAZEL_FLAGS //bench/engine:engine_benchmark >&2
  # shellcheck disable=SC2086
  cp "$(bazel info $BAZEL_FLAGS bazel-bin 2>/dev/null)/bench/engine/engine_benchmark" \
    "$WORK/engine_benchmark"
  BINARIES="$WORK/engine_benchmark"
fi

# cost_and_calls BINARY CASE FUNCTION MIN_TIME: "<instructions> <calls>" of
# FUNCTION's callees as callgrind_annotate attributes them to it.
cost_and_calls() {
  valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" "$1" \
    --benchmark_filter="^$2\$" --benchmark_min_time="$4" >/dev/null 2>&1
  callgrind_annotate --inclusive=yes --tree=caller "$WORK/cg.out" 2>/dev/null |
    /usr/bin/python3 -c '
import re, sys
function = sys.argv[1]
for line in sys.stdin:
    if "< " in line and function in line:
        m = re.match(r"\s*([\d,]+) .*\(([\d,]+)x\)", line)
        if m:
            print(m.group(1).replace(",", ""), m.group(2).replace(",", ""))
            sys.exit(0)
sys.exit("no call of " + function + " found")' "$3"
}

echo "| binary | case | instructions per call |"
echo "|---|---|---|"
index=0
for binary in $BINARIES; do
  index=$((index + 1))
  for case in $CASES; do
    function="toolgate::Engine::ValidateToolCall("
    [[ "$case" == BM_ExtractVerdict* ]] && function="toolgate::Engine::ExtractVerdict("
    read -r short_cost short_calls < <(cost_and_calls "$binary" "$case" "$function" "$SHORT")
    read -r long_cost long_calls < <(cost_and_calls "$binary" "$case" "$function" "$LONG")
    if [ "$long_calls" -le "$short_calls" ]; then
      echo "$case: the long run made no more calls than the short one" >&2
      exit 1
    fi
    echo "| $index: $(basename "$binary") | $case |" \
      "$(((long_cost - short_cost) / (long_calls - short_calls))) |"
  done
done
