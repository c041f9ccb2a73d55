#!/bin/bash
# CI piece: builds all fuzz targets (clang-14, libFuzzer + ASan + UBSan) and
# runs each for $FUZZ_SECONDS (default 60) over its seed corpus. Non-zero
# exit on any crash or invariant violation; crash inputs are left under
# $FUZZ_WORK/artifacts/<target>/ (default ~/.cache/toolgate-fuzz).
set -uo pipefail
cd "$(dirname "$0")/../.."
scripts/install-deps.sh || exit 1
exec tests/fuzz/run_all.sh "${FUZZ_SECONDS:-60}"
