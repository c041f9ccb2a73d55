#!/bin/bash
# Starts the toolgate server on a free 127.0.0.1 port, runs the soak
# driver against it (with the server's pid, for its RSS), stops the server
# with SIGTERM and checks that it exited 0.
#
#   soak_against_server.sh TOOLGATE_BIN SOAK_BIN [soak flags...]
#
# Used by run_soak.sh (after building) and by //bench/soak:soak_smoke_test
# (binaries from runfiles). Prints the soak's JSON line on stdout; exits
# non-zero when the soak failed or the server did not exit 0.
set -uo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 TOOLGATE_BIN SOAK_BIN [soak flags...]" >&2
  exit 2
fi
SERVER_BIN="$1"
SOAK_BIN="$2"
shift 2

WORK="$(mktemp -d "${TEST_TMPDIR:-${TMPDIR:-/tmp}}/soak.XXXXXX")"
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -KILL "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# exec: $! is then the server itself, whose RSS the soak samples and which
# SIGTERM must reach.
(exec "$SERVER_BIN" --listen=127.0.0.1:0 --port_file="$WORK/port") \
  2>"$WORK/server.log" &
SERVER_PID=$!
for _ in $(seq 100); do
  [ -s "$WORK/port" ] && break
  sleep 0.1
done
if [ ! -s "$WORK/port" ]; then
  echo "soak: server did not start:" >&2
  cat "$WORK/server.log" >&2
  exit 1
fi
ADDR="127.0.0.1:$(cat "$WORK/port")"
echo "soak: server on $ADDR (pid $SERVER_PID)" >&2

soak_rc=0
"$SOAK_BIN" --addr="$ADDR" --server_pid="$SERVER_PID" "$@" || soak_rc=$?

server_rc=0
if kill -0 "$SERVER_PID" 2>/dev/null; then
  kill -TERM "$SERVER_PID"
  wait "$SERVER_PID" || server_rc=$?
  echo "soak: server stopped with SIGTERM, exit status $server_rc" >&2
else
  wait "$SERVER_PID" || server_rc=$?
  echo "soak: server was already gone (exit status $server_rc)" >&2
  [ "$server_rc" -eq 0 ] && server_rc=1  # It must outlive the soak.
fi
SERVER_PID=""
if [ "$soak_rc" -ne 0 ] || [ "$server_rc" -ne 0 ]; then
  echo "soak: FAILED (soak exit $soak_rc, server exit $server_rc); server log:" >&2
  tail -n 40 "$WORK/server.log" >&2
  exit 1
fi
echo "soak: OK (soak exit 0, server exit 0)" >&2
