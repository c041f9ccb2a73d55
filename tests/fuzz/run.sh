#!/bin/bash
# Builds one fuzz target with clang-14 (libFuzzer + ASan + UBSan) and runs it
# for SECONDS over its seed corpus. Exits non-zero on any crash, invariant
# violation, timeout or out-of-memory; prints runs and exec/s either way.
#
#   tests/fuzz/run.sh TARGET SECONDS [libFuzzer flags...]
#   tests/fuzz/run.sh json_parse_fuzzer 600 -jobs=1
#
# Environment:
#   FUZZ_OUTPUT_BASE  Bazel output base for the clang build (default
#                     ~/.cache/toolgate-bazel-asan, the ASan suite's, whose
#                     objects the fuzz targets share; kept apart so the gcc
#                     build's cache is not invalidated)
#   FUZZ_WORK         where the growing corpus, crash artifacts and logs go
#                     (default ~/.cache/toolgate-fuzz; never the repository)
#   FUZZ_SKIP_BUILD   1: use the binary already built (run_all.sh does)
#   FUZZ_BIN_DIR      the fuzz build's bazel-bin (run_all.sh passes it, so
#                     parallel runs do not queue on Bazel's lock)
set -uo pipefail
cd "$(dirname "$0")/../.."

if [ $# -lt 2 ]; then
  echo "usage: $0 TARGET SECONDS [libFuzzer flags...]" >&2
  exit 2
fi
target="$1"
seconds="$2"
shift 2

output_base="${FUZZ_OUTPUT_BASE:-$HOME/.cache/toolgate-bazel-asan}"
work="${FUZZ_WORK:-$HOME/.cache/toolgate-fuzz}"
bazel_fuzz=(bazel "--output_base=$output_base")

# Which dictionaries (tests/fuzz/dict/*.dict) each target reads.
case "$target" in
  json_parse_fuzzer) dicts="json" ;;
  repair_fuzzer) dicts="json repair" ;;
  extract_fuzzer) dicts="json repair text" ;;
  text_format_fuzzer) dicts="json repair text formats" ;;
  schema_compile_fuzzer | schema_validate_fuzzer) dicts="json schema" ;;
  verdict_fuzzer) dicts="json repair text verdict" ;;
  manifest_fuzzer) dicts="json manifest schema" ;;
  output_fuzzer) dicts="json output" ;;
  call_gate_fuzzer) dicts="json repair text native" ;;
  stream_fuzzer) dicts="json native stream" ;;
  ext_proc_fuzzer) dicts="json output sse" ;;
  mesh_batch_fuzzer) dicts="json native" ;;
  mesh_answer_fuzzer) dicts="json output sse" ;;
  *) echo "run.sh: unknown fuzz target '$target'" >&2; exit 2 ;;
esac

if ! command -v clang-14 >/dev/null; then
  echo "run.sh: clang-14 missing: run scripts/install-deps.sh" >&2
  exit 1
fi

if [ "${FUZZ_SKIP_BUILD:-0}" != 1 ]; then
  "${bazel_fuzz[@]}" build --config=fuzz "//tests/fuzz:$target" || exit 1
fi
bin_dir="${FUZZ_BIN_DIR:-$("${bazel_fuzz[@]}" info --config=fuzz bazel-bin 2>/dev/null)}"
bin="$bin_dir/tests/fuzz/$target"
[ -x "$bin" ] || { echo "run.sh: $bin not built" >&2; exit 1; }

corpus="$work/corpus/$target"
artifacts="$work/artifacts/$target"
log="$work/logs/$target.log"
dict="$work/dict/$target.dict"
mkdir -p "$corpus" "$artifacts" "$(dirname "$log")" "$(dirname "$dict")"
for d in $dicts; do cat "tests/fuzz/dict/$d.dict"; done > "$dict"

# New inputs go to $corpus (first directory); the seeds stay read-only.
touch "$log.start"
ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" \
UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
  "$bin" -max_total_time="$seconds" -print_final_stats=1 -timeout=60 \
  -rss_limit_mb=2560 -artifact_prefix="$artifacts/" -dict="$dict" "$@" \
  "$corpus" "tests/fuzz/corpus/$target" >"$log" 2>&1
status=$?

runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
if [ $status -eq 0 ]; then
  echo "fuzz $target: ${seconds}s, ${runs:-?} runs, ${rate:-?} exec/s, ${cov:-cov: ?}, 0 crashes"
  exit 0
fi
echo "fuzz $target: FAILED (exit $status) after ${runs:-?} runs; log: $log" >&2
grep -A12 -m1 -E 'INVARIANT VIOLATED|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|==ERROR' "$log" >&2
find "$artifacts" -type f -newer "$log.start" | sed 's|^|  artifact: |' >&2
exit 1
