#!/bin/bash
# Re-derives the recorded reference readings from the pinned MCP SDK and
# compares them with readings.json (outside Bazel: npm ci needs the npm
# registry; the SDK is installed in a temporary directory, never in the
# workspace). --update rewrites readings.json (after make_cases.py).
#
#   tests/mesh/reference/check.sh [--update]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$here/package.json" "$here/package-lock.json" "$here/read.mjs" "$work/"
(cd "$work" && npm ci --no-audit --no-fund --silent)
node=${NODE:-node}
if [ "${1:-}" = "--update" ]; then
  "$node" "$work/read.mjs" "$here/cases.json" > "$here/readings.json"
  echo "readings.json rewritten"
  exit 0
fi
"$node" "$work/read.mjs" "$here/cases.json" | diff -u "$here/readings.json" - \
  && echo "reference readings unchanged"
