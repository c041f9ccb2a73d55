#!/bin/bash
# Installs what is missing, builds, and starts the toolgate sidecar.
# With no flags it serves the example manifests in schemas/ (compiled into
# the binary) on 127.0.0.1:50051. Flags are passed to the sidecar, e.g.
#   scripts/run.sh --listen 0.0.0.0:50051 --manifests /etc/toolgate
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
bazel build -c opt //server:toolgate //client:toolgatectl >&2
exec bazel-bin/server/toolgate "$@"
