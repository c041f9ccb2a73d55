#!/bin/bash
# The Node client, the Node agent loop, the Go example, the SSE
# differential (tests/mesh/sse_reference) and the MCP gateway (tests/mcp)
# against the real
# server (bazel-bin/server/toolgate, bazel-bin/client/toolgatectl: build
# them first). Outside Bazel because npm ci needs the npm registry. The
# Python client is the Bazel test //client/python:python_client_test.
# Ends with "N passed, N failed" (test cases; a stage that prints no count
# counts as one failure).
set -uo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"
export TOOLGATE_SERVER="${TOOLGATE_SERVER:-$repo/bazel-bin/server/toolgate}"
export TOOLGATE_CTL="${TOOLGATE_CTL:-$repo/bazel-bin/client/toolgatectl}"
# The Node client's trace test runs tests/trace/otlp_receiver.py, which
# compiles OpenTelemetry's protos from here (as scripts/test.sh passes them).
export TOOLGATE_OTEL_PROTO_DIR="${TOOLGATE_OTEL_PROTO_DIR:-$(cd .. && pwd)/shared/otel-proto}"
passed=0
failed=0
stage() {  # stage NAME DIR COMMAND...
  local name=$1 dir=$2 out line
  shift 2
  echo "=== $name" >&2
  out=$(cd "$dir" && "$@" 2>&1)
  echo "$out" | tail -40 >&2
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' <<<"$out" | tail -1)
  if [ -z "$line" ]; then
    echo "$name: no result, counted as failed" >&2
    failed=$((failed + 1))
    return
  fi
  echo "$name: $line" >&2
  passed=$((passed + $(cut -d' ' -f1 <<<"$line")))
  failed=$((failed + $(cut -d' ' -f3 <<<"$line")))
}
npm_test() { npm ci --no-audit --no-fund && npm test; }
stage "node client" client/node npm_test
stage "node agent loop" examples/node npm_test
stage "go example" examples/go ./test.sh
# toolgate's SSE reader against eventsource-parser (the MCP TypeScript
# SDK's) and Python's line splitting, 3000 generated bodies (seed 25).
stage "sse reference differential" tests/mesh/sse_reference ./run.sh
# The MCP gateway (toolgatectl mcp-proxy, docs/gateway.md): the MCP
# TypeScript SDK's client through the proxy in front of server-everything,
# server-filesystem and a hostile server (pinned in tests/mcp's lockfile).
stage "mcp gateway" tests/mcp npm_test
# The overhead bench (bench/clients/README.md), briefly, so it never rots: no
# timing is asserted, only that both languages report every figure.
bench_smoke() {
  local out
  out=$(bench/clients/run.sh 50) || { echo "0 passed, 1 failed"; return; }
  echo "$out"
  if /usr/bin/python3 -c 'import json, sys
rows = [json.loads(l) for l in sys.stdin if l.startswith("{")]
assert sorted(r["language"] for r in rows) == ["node", "python"], rows
for r in rows:
    for k in ("raw", "same", "client", "local"):
        assert r[k]["p50_us"] > 0, (r["language"], k)
    assert "p50" in r["client_over_same_pct"], r' <<<"$out"; then
    echo "1 passed, 0 failed"
  else
    echo "0 passed, 1 failed"
  fi
}
stage "client overhead bench (smoke)" . bench_smoke
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
