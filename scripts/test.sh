#!/bin/bash
# Installs what is missing, builds, and runs every test (unit, integration,
# conformance, Python end to end). Ends with "N passed, N failed" counting
# test cases across all test targets.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh || exit 1

# The JSON-Schema-Test-Suite lives in shared/ beside the repository.
suite="$(cd .. && pwd)/shared/conformance/JSON-Schema-Test-Suite"
env_flags=()
[ -d "$suite" ] && env_flags+=("--test_env=TOOLGATE_CONFORMANCE_DIR=$suite")

bazel test //... "${env_flags[@]}" "$@"
status=$?
/usr/bin/python3 scripts/summarize_tests.py "$(bazel info bazel-testlogs 2>/dev/null)" \
  $(bazel query 'tests(//...)' 2>/dev/null)
summary=$?
[ $status -eq 0 ] && [ $summary -eq 0 ] && exit 0
exit 1
