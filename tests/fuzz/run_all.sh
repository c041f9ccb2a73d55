#!/bin/bash
# Builds every fuzz target once (clang-14, --config=fuzz) and runs each for
# SECONDS via run.sh. Exits non-zero if any target fails.
#
#   tests/fuzz/run_all.sh SECONDS [libFuzzer flags...]
# Environment: as run.sh (FUZZ_BIN_DIR set: no build), plus FUZZ_TARGETS (space-separated subset) and
# FUZZ_JOBS (targets run at once, default 1; each is one process).
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
call_gate_fuzzer stream_fuzzer ext_proc_fuzzer mesh_batch_fuzzer
mesh_answer_fuzzer text_format_fuzzer"
targets="${FUZZ_TARGETS:-$all}"

output_base="${FUZZ_OUTPUT_BASE:-$HOME/.cache/toolgate-bazel-asan}"
labels=()
for t in $targets; do labels+=("//tests/fuzz:$t"); done
# FUZZ_BIN_DIR set: run binaries built before (e.g. copied aside, so that
# another build in the same output base cannot replace them mid-run).
if [ -z "${FUZZ_BIN_DIR:-}" ]; then
  start=$(date +%s)
  bazel "--output_base=$output_base" build --config=fuzz "${labels[@]}" || exit 1
  echo "fuzz build: $(( $(date +%s) - start ))s"
  FUZZ_BIN_DIR="$(bazel "--output_base=$output_base" info --config=fuzz bazel-bin 2>/dev/null)"
fi
export FUZZ_BIN_DIR

# Each target writes its summary line to its own file; at most FUZZ_JOBS
# run at once.
jobs="${FUZZ_JOBS:-1}"
lines="$(mktemp -d)"
trap 'rm -rf "$lines"' EXIT
running=0
for t in $targets; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
  (
    if FUZZ_SKIP_BUILD=1 tests/fuzz/run.sh "$t" "$seconds" "$@" >"$lines/$t"; then
      exit 0
    fi
    echo "fuzz $t: FAILED" >"$lines/$t"
  ) &
  running=$((running + 1))
done
wait
failed=0
for t in $targets; do
  cat "$lines/$t"
  grep -q ": FAILED" "$lines/$t" && failed=1
done
exit $failed
