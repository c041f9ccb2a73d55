#!/bin/bash
# //bench/flood:stream_flood_smoke_test: bench/flood/stream_flood.cc at a
# size CI runs in seconds (see bench/flood/BUILD).
set -euo pipefail
exec "$1" --streams=80 --past_limit_mb=64 --sighups=3 --max_peak_rss_mb=512
