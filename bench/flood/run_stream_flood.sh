#!/bin/bash
# Issue 25's flood at full size against an optimized build with the default
# limits (bench/flood/stream_flood.cc): 400 streams opened at once (the
# report's 1.1 GB), one stream sending 3.3 GB past its limit (the report's
# 3.3 GiB / 22.9 CPU-seconds), 50 reloads with a FIFO, /dev/urandom,
# /dev/zero, a directory, a socket and a 1 TB sparse file in --manifests.
# Then the same with the most a stream can hold (--worst: audit payloads
# kept, a 1.5 MB header). Prints each JSON report; exits non-zero when a
# check failed.
#
#   bench/flood/run_stream_flood.sh [STREAMS] [PAST_LIMIT_MB] [SIGHUPS]
set -euo pipefail
cd "$(dirname "$0")/../.."
STREAMS="${1:-400}"
PAST_MB="${2:-3300}"
SIGHUPS="${3:-50}"
bazel build -c opt //bench/flood:stream_flood >&2
BIN="$(bazel info -c opt bazel-bin 2>/dev/null)/bench/flood/stream_flood"
# ServerProcess finds server/toolgate in the binary's runfiles.
cd "$BIN.runfiles/toolgate"
"$BIN" --streams="$STREAMS" --past_limit_mb="$PAST_MB" --sighups="$SIGHUPS"
"$BIN" --streams="$STREAMS" --past_limit_mb=0 --sighups=0 --worst=true
