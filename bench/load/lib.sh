# Sourced by the scripts here (authz_ratio.sh, server_instructions.sh,
# trace_overhead.sh, trace_instructions.sh) and bench/state/: a work
# directory removed on exit (stopping the server in $SERVER_PID first, if
# any), and the server and load generator built with $BAZEL_FLAGS (default
# "-c opt") and copied into it as $WORK/toolgate and $WORK/loadgen.
BAZEL_FLAGS="${BAZEL_FLAGS--c opt}"
WORK="$(mktemp -d)"
SERVER_PID=""
bench_cleanup() {
  if [ -n "$SERVER_PID" ]; then kill -TERM "$SERVER_PID" 2>/dev/null || true; fi
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap bench_cleanup EXIT

# wait_file FILE WHAT: until FILE is non-empty (a port file), a minute at
# most (a server under callgrind starts slowly); exits when it never is.
wait_file() {
  for _ in $(seq 600); do
    [ -s "$1" ] && return 0
    sleep 0.1
  done
  echo "$2 did not start" >&2
  exit 1
}

# A loopback TCP port nothing listens on now.
free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket()
s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# shellcheck disable=SC2086  # BAZEL_FLAGS is a list of flags.
bazel build $BAZEL_FLAGS //server:toolgate //bench/load:loadgen >&2
# shellcheck disable=SC2086
cp "$(bazel info $BAZEL_FLAGS bazel-bin 2>/dev/null)"/{server/toolgate,bench/load/loadgen} \
  "$WORK/"
