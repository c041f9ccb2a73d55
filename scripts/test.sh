#!/bin/bash
# Installs what is missing, builds, and runs every test: the whole suite
# (unit, integration, JSON-Schema-Test-Suite conformance, Envoy mesh, Python
# end to end and the Python client), the Node client and the Go example,
# the whole suite again under ASan+UBSan, the concurrency tests under TSan,
# every fuzz target briefly, and a short soak. Ends with
# "N passed, N failed": test cases across all test targets, plus one case
# per script stage.
#
#   scripts/test.sh            everything (what CI runs)
#   TOOLGATE_QUICK=1 scripts/test.sh   the plain suite only
#   TOOLGATE_SANITIZE=full scripts/test.sh   the sanitizer stages over the
#                              whole tree (ASan) and every gRPC test (TSan):
#                              about 40 minutes more on 2 cores
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh || exit 1

# The JSON-Schema-Test-Suite lives in shared/ beside the repository.
suite="$(cd .. && pwd)/shared/conformance/JSON-Schema-Test-Suite"
env_flags=()
[ -d "$suite" ] && env_flags+=("--test_env=TOOLGATE_CONFORMANCE_DIR=$suite")
# Envoy's API protos (the mesh tests' oracle) live there too; the tests
# fail without them.
env_flags+=("--test_env=TOOLGATE_ENVOY_API_DIR=$(cd .. && pwd)/shared/envoy-api")
env_flags+=("--test_env=TOOLGATE_OTEL_PROTO_DIR=$(cd .. && pwd)/shared/otel-proto")

passed=0
failed=0
# Adds "N passed, N failed" from a summary line to the totals.
add_counts() {
  local line
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' <<<"$1" | tail -1)
  if [ -z "$line" ]; then
    failed=$((failed + 1))
    return
  fi
  passed=$((passed + $(cut -d' ' -f1 <<<"$line")))
  failed=$((failed + $(cut -d' ' -f3 <<<"$line")))
}

# bazel_suite NAME OUTPUT_BASE TARGET_PATTERN FLAGS...: runs a suite in its
# own output base (sanitizer builds do not evict the plain one; all share
# the disk cache) and counts its test cases.
bazel_suite() {
  local name=$1 base=$2 pattern=$3
  shift 3
  # The test targets, listed by the main output base: a second output base
  # expanding //... would wander into the bazel-* links of the first.
  local targets
  targets=$(bazel query "tests(${pattern// / + })" 2>/dev/null)
  local startup=()
  # Its own links (bazel-bin, ...) stay those of the plain build.
  [ -n "$base" ] && startup=("--output_base=$base") && set -- "$@" --symlink_prefix=/
  echo "=== $name" >&2
  local started=$SECONDS
  bazel "${startup[@]}" test "$@" "${env_flags[@]}" -- $targets
  local testlogs summary
  testlogs=$(bazel "${startup[@]}" info "$@" bazel-testlogs 2>/dev/null)
  summary=$(/usr/bin/python3 scripts/summarize_tests.py "$testlogs" $targets)
  echo "$name: $summary ($((SECONDS - started)) s)" >&2
  add_counts "$summary"
}

# script_stage NAME COMMAND...: one case, passed when the command exits 0.
script_stage() {
  local name=$1
  shift
  echo "=== $name" >&2
  local started=$SECONDS
  if "$@"; then
    passed=$((passed + 1))
    echo "$name: passed ($((SECONDS - started)) s)" >&2
  else
    echo "$name: FAILED ($((SECONDS - started)) s)" >&2
    failed=$((failed + 1))
  fi
}

bazel_suite "suite" "" "//..."
# Node client, Node agent loop, Go example: outside Bazel (npm ci needs the
# npm registry); they use the server the suite just built.
echo "=== clients (node, go)" >&2
started=$SECONDS
clients=$(scripts/clients_test.sh)
echo "clients: $clients ($((SECONDS - started)) s)" >&2
add_counts "$clients"
# The opt-in allocator (server/BUILD :allocator): the allocator test and
# the server's end-to-end tests built with it (after the clients, which
# use the default build's server).
bazel_suite "mimalloc build" "" "//server:allocator_test //tests/integration:server_test //tests/deploy:rootfs_test" \
  --define=toolgate_allocator=mimalloc
if [ -z "${TOOLGATE_QUICK:-}" ]; then
  cache="$HOME/.cache"
  # The fuzz smoke below reuses this output base: the fuzz targets are
  # the same clang build (.bazelrc), linked against libFuzzer.
  # CI's scope keeps the run under 30 minutes: ASan+UBSan over the
  # gRPC-free core (every reader, parser and decision), the conformance
  # suites and the fuzz targets' replays; TSan over the core's concurrent
  # parts and the server's own tests. TOOLGATE_SANITIZE=full widens both
  # to what the fresh-clone runs before a release use.
  if [ "${TOOLGATE_SANITIZE:-ci}" = full ]; then
    asan_scope="//..."
    tsan_scope="//core/run/... //core/engine/... //core/pipeline/... //core/snapshot/... //core/schema/... //core/trace/... //core/approval/... //core/state/... //core/redis/... //server/... //client/... //tests/integration/..."
  else
    asan_scope="//core/... //tests/conformance/... //tests/fuzz/..."
    tsan_scope="//core/run/... //core/engine/... //core/pipeline/... //core/snapshot/... //core/trace/... //core/approval/... //core/state/... //core/redis/... //core/schema:schema_test //core/schema:metaschema_test //server/..."
  fi
  bazel_suite "asan+ubsan" "$cache/toolgate-bazel-asan" "$asan_scope" --config=asan
  bazel_suite "tsan" "$cache/toolgate-bazel-tsan" "$tsan_scope" --config=tsan
  script_stage "fuzz smoke (each target ${FUZZ_SECONDS:-15}s)" \
    tests/fuzz/ci_smoke.sh
  script_stage "soak smoke (20k calls)" bench/soak/run_soak.sh 20000
  # One short round of the latency-ratio script (no timing asserted): it
  # must build, serve every mix without an error and print its table.
  script_stage "ratio rounds smoke" env ROUNDS=1 DURATION=1 BAZEL_FLAGS= \
    MIXES="authz allow text verdict" bench/load/authz_ratio.sh
  # One short round of tracing on vs off (no timing asserted): it must
  # build, start the OTLP receiver and both servers, serve without an
  # error, and the receiver must get exactly the spans "on" exported.
  script_stage "trace overhead smoke" env ROUNDS=1 DURATION=1 BAZEL_FLAGS= \
    MODES=stateless TOOLGATE_OTEL_PROTO_DIR="$(cd .. && pwd)/shared/otel-proto" \
    bench/load/trace_overhead.sh
  # One short round of the Redis state store vs memory (issue 26; no
  # timing asserted): it must start redis-server and both servers, serve
  # without an error, reach Redis on every redis-side run, and send Redis
  # at most 1.5 requests per decision.
  script_stage "state store smoke" env ROUNDS=1 DURATION=1 BAZEL_FLAGS= \
    bench/state/run.sh
  # Runs never closed leave nothing in Redis after the idle TTL (issue 26;
  # 100,000 runs by default, 2,000 here).
  script_stage "state flood smoke" env RUNS=2000 TTL=2 BAZEL_FLAGS= \
    bench/state/flood.sh
  # What tracing costs in instructions per call (callgrind), briefly.
  script_stage "trace instructions smoke" env CALLS=50 BAZEL_FLAGS= \
    bench/load/trace_instructions.sh
  # Instructions per call under callgrind, server and engine, briefly.
  script_stage "server instructions smoke" env DURATION=1 BAZEL_FLAGS= \
    MIXES="allow verdict" bench/load/server_instructions.sh
  script_stage "engine instructions smoke" env SHORT=0.02 LONG=0.1 \
    BAZEL_FLAGS= CASES="BM_ValidateToolCall/openai_allow BM_ExtractVerdict/strict" \
    bench/engine/instructions.sh
fi
echo "total time: $SECONDS s" >&2
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
