#!/bin/bash
# A CI-sized run of the load generator so it never rots: every mode and mix
# (health and verdict included) for a moment against a running server;
# fails on any RPC error, any decision the mix did not expect, a verdict
# other than PASS or a health status other than SERVING (both counted as
# errors by the loadgen). No timing is checked (bench/README.md has how to
# measure).
#
#   loadgen_smoke.sh LOADGEN_BIN ADDR    (run by //bench/load:loadgen_smoke_test
#                                         under bench/with_server.sh)
set -uo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 LOADGEN_BIN ADDR" >&2
  exit 2
fi
LOADGEN="$1"
ADDR="$2"
failed=0
RUNS="stateless:allow stateless:reject stateless:text stateless:mixed
  stateless:health stateless:verdict stateless:authz run:allow run:mixed
  run:health run:verdict run:authz"
for run in $RUNS; do
  out="$("$LOADGEN" --addr="$ADDR" --mode="${run%%:*}" --mix="${run##*:}" \
    --concurrency=2 --duration_seconds=1 --label="smoke $run")" || {
    echo "loadgen $run: exit status $?" >&2
    failed=1
    continue
  }
  echo "$out" | head -n 1
  # The JSON line: some requests, no errors, nothing unexpected; health
  # verdict and authz answered SERVING, PASS and OK every time.
  if ! echo "$out" | tail -n 1 | /usr/bin/python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
want = {"health": "SERVING", "verdict": "PASS", "authz": "OK"}.get(d["mix"])
bad = d["requests"] == 0 or d["errors"] != 0 or d["unexpected"] != 0
if want is not None:
    bad = bad or d["outcomes"] != {want: d["requests"]}
sys.exit(1 if bad else 0)'; then
    echo "loadgen $run: FAILED: $(echo "$out" | tail -n 1)" >&2
    failed=1
  fi
done
exit $failed
