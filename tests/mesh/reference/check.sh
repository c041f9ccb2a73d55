#!/bin/bash
# Re-derives the recorded reference readings from the pinned MCP SDK and
# compares them with readings.json (outside Bazel: npm ci needs the npm
# registry). --update rewrites readings.json (after make_cases.py).
#
#   tests/mesh/reference/check.sh [--update]
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --silent
node=${NODE:-node}
if [ "${1:-}" = "--update" ]; then
  "$node" read.mjs cases.json > readings.json
  echo "readings.json rewritten"
  exit 0
fi
"$node" read.mjs cases.json | diff -u readings.json - \
  && echo "reference readings unchanged"
