#!/bin/bash
# The gateway benchmark (README.md here): builds the binaries with -c opt
# and prints one JSON line per figure. Usage: bench/mcp/run.sh [CALLS]
set -euo pipefail
cd "$(dirname "$0")/../.."
bazel build -c opt //bench/mcp:mcp_proxy_bench //client:toolgatectl //server:toolgate >&2
bin=$(bazel info -c opt bazel-bin 2>/dev/null)
exec "$bin/bench/mcp/mcp_proxy_bench" --ctl "$bin/client/toolgatectl" \
  --server "$bin/server/toolgate" --mcp_server bench/mcp/trivial_server.py \
  --calls "${1:-2000}"
