#!/bin/bash
# Starts bazel-bin/server/toolgate and runs both client benches against it.
#   bench/clients/run.sh [N]     (after bazel build //server:toolgate, and
#   npm ci in client/node; installs client/python into a scratch dir)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
n="${1:-5000}"
work="$(mktemp -d)"
trap 'kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
/usr/bin/python3 -m pip install -q --no-build-isolation --no-deps --no-index \
  --no-cache-dir --target "$work/site" "$repo/client/python" 2>/dev/null
"$repo/bazel-bin/server/toolgate" --listen=127.0.0.1:0 --port_file="$work/port" 2>/dev/null &
pid=$!
for _ in $(seq 200); do [ -s "$work/port" ] && break; sleep 0.05; done
target="127.0.0.1:$(cat "$work/port")"
PYTHONPATH="$work/site" /usr/bin/python3 "$here/bench_python.py" "$target" "$n"
(cd "$here" && node bench_node.mjs "$target" "$n")
