#!/bin/bash
# CI piece: builds all fuzz targets (clang-14, libFuzzer + ASan + UBSan) and
# runs each for $FUZZ_SECONDS (default 15) over its seed corpus, two at a
# time ($FUZZ_JOBS; one core each on a 2-core machine). Non-zero
# exit on any crash or invariant violation; crash inputs are left under
# $FUZZ_WORK/artifacts/<target>/ (default ~/.cache/toolgate-fuzz).
set -uo pipefail
cd "$(dirname "$0")/../.."
scripts/install-deps.sh || exit 1
FUZZ_JOBS="${FUZZ_JOBS:-2}" exec tests/fuzz/run_all.sh "${FUZZ_SECONDS:-15}"
