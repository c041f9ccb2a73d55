#!/bin/bash
# Starts the toolgate server on a free 127.0.0.1 port, runs COMMAND against
# it, stops the server with SIGTERM and checks that it exited 0. In the
# command's arguments @ADDR@ becomes the server's address and @PID@ its pid
# (the soak samples its RSS).
#
#   with_server.sh TOOLGATE_BIN COMMAND [ARGS...]
#
# Used by bench/soak/run_soak.sh (after building), //bench/soak:soak_smoke_test
# and //bench/load:loadgen_smoke_test (binaries from runfiles). The
# command's stdout passes through; exits non-zero when the command failed or
# the server did not exit 0.
set -uo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 TOOLGATE_BIN COMMAND [ARGS...]" >&2
  exit 2
fi
SERVER_BIN="$1"
shift

WORK="$(mktemp -d "${TEST_TMPDIR:-${TMPDIR:-/tmp}}/with_server.XXXXXX")"
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
# SIGTERM must reach. No drain notice: nothing is sending when it stops.
(exec "$SERVER_BIN" --listen=127.0.0.1:0 --port_file="$WORK/port" \
  --drain_notice_ms=0) \
  2>"$WORK/server.log" &
SERVER_PID=$!
for _ in $(seq 100); do
  [ -s "$WORK/port" ] && break
  sleep 0.1
done
if [ ! -s "$WORK/port" ]; then
  echo "with_server: server did not start:" >&2
  cat "$WORK/server.log" >&2
  exit 1
fi
ADDR="127.0.0.1:$(cat "$WORK/port")"
echo "with_server: server on $ADDR (pid $SERVER_PID)" >&2

args=()
for a in "$@"; do
  a="${a//@ADDR@/$ADDR}"
  args+=("${a//@PID@/$SERVER_PID}")
done
cmd_rc=0
"${args[@]}" || cmd_rc=$?

server_rc=0
if kill -0 "$SERVER_PID" 2>/dev/null; then
  kill -TERM "$SERVER_PID"
  wait "$SERVER_PID" || server_rc=$?
  echo "with_server: server stopped with SIGTERM, exit status $server_rc" >&2
else
  wait "$SERVER_PID" || server_rc=$?
  echo "with_server: server was already gone (exit status $server_rc)" >&2
  [ "$server_rc" -eq 0 ] && server_rc=1  # It must outlive the command.
fi
SERVER_PID=""
if [ "$cmd_rc" -ne 0 ] || [ "$server_rc" -ne 0 ]; then
  echo "with_server: FAILED (command exit $cmd_rc, server exit $server_rc); server log:" >&2
  tail -n 40 "$WORK/server.log" >&2
  exit 1
fi
echo "with_server: OK (command exit 0, server exit 0)" >&2
