#!/bin/bash
# The SSE differential test (differential.py): toolgate's reader against
# eventsource-parser (pinned here, npm ci) and Python's line splitting, on
# 3000 generated bodies (fixed seed). Needs bazel-bin/tests/mesh/sse_read
# (built here when missing) and the npm registry. Ends with
# "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")"
repo="$(cd ../../.. && pwd)"
SSE_READ="${SSE_READ:-$repo/bazel-bin/tests/mesh/sse_read}"
if [ ! -x "$SSE_READ" ]; then
  (cd "$repo" && bazel build //tests/mesh:sse_read) >&2 || {
    echo "0 passed, 1 failed"; exit 1; }
fi
npm ci --no-audit --no-fund >&2 || { echo "0 passed, 1 failed"; exit 1; }
exec /usr/bin/python3 differential.py "$SSE_READ" "${SSE_BODIES:-3000}" 25
