#!/bin/bash
# Builds every fuzz target once (clang-14, --config=fuzz) and runs each for
# SECONDS via run.sh. Exits non-zero if any target fails.
#
#   tests/fuzz/run_all.sh SECONDS [libFuzzer flags...]
# Environment: as run.sh, plus FUZZ_TARGETS (space-separated subset).
set -uo pipefail
cd "$(dirname "$0")/../.."
if [ $# -lt 1 ]; then
  echo "usage: $0 SECONDS [libFuzzer flags...]" >&2
  exit 2
fi
seconds="$1"
shift

all="json_parse_fuzzer extract_fuzzer repair_fuzzer schema_compile_fuzzer
schema_validate_fuzzer verdict_fuzzer manifest_fuzzer output_fuzzer
call_gate_fuzzer"
targets="${FUZZ_TARGETS:-$all}"

output_base="${FUZZ_OUTPUT_BASE:-$HOME/.cache/toolgate-bazel-fuzz}"
labels=()
for t in $targets; do labels+=("//tests/fuzz:$t"); done
start=$(date +%s)
bazel "--output_base=$output_base" build --config=fuzz "${labels[@]}" || exit 1
echo "fuzz build: $(( $(date +%s) - start ))s"

failed=0
summary=()
for t in $targets; do
  if line=$(FUZZ_SKIP_BUILD=1 tests/fuzz/run.sh "$t" "$seconds" "$@"); then
    summary+=("$line")
  else
    summary+=("fuzz $t: FAILED")
    failed=1
  fi
done
printf '%s\n' "${summary[@]}"
exit $failed
