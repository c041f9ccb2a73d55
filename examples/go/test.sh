#!/bin/bash
# Builds examples/go (build.sh) and runs it against a real sidecar: an
# allowed call (exit 0, ALLOW), a schema error (exit 1, REJECT), and no
# server (exit 2). Ends with "N passed, N failed".
#   TOOLGATE_SERVER=bazel-bin/server/toolgate examples/go/test.sh
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
server="${TOOLGATE_SERVER:-$repo/bazel-bin/server/toolgate}"
work="$(mktemp -d)"
trap 'kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
passed=0 failed=0
if ! "$here/build.sh" "$work/out" >"$work/build.log" 2>&1; then
  cat "$work/build.log"; echo "0 passed, 1 failed"; exit 1
fi
bin="$work/out/toolgate-go-example"
"$server" --listen=127.0.0.1:0 --port_file="$work/port" 2>"$work/server.log" &
pid=$!
for _ in $(seq 200); do [ -s "$work/port" ] && break; sleep 0.05; done
target="127.0.0.1:$(cat "$work/port")"
manifest="$repo/schemas/tickets.openai.json"
call() {  # call FILE ARGUMENTS_JSON
  printf '{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"update_ticket","arguments":%s}}]}' \
    "$(printf '%s' "$2" | jq -Rs .)" > "$1"
}
call "$work/good.json" '{"ticket_id":"TCK-004242","priority":"urgent"}'
call "$work/bad.json" '{"ticket_id":"TCK-004242","priority":"critial"}'
check() {  # check NAME WANT_EXIT WANT_FIRST_LINE TARGET OUTPUT
  local got out
  out=$("$bin" -target "$4" -manifest "$manifest" -output "$5" 2>&1); got=$?
  if [ "$got" -eq "$2" ] && [ "$(head -1 <<<"$out")" = "$3" ]; then
    echo "ok   $1"; passed=$((passed + 1))
  else
    echo "FAIL $1: exit $got, output: $out"; failed=$((failed + 1))
  fi
}
check allow 0 DECISION_ALLOW "$target" "$work/good.json"
check reject 1 DECISION_REJECT "$target" "$work/bad.json"
kill "$pid"; wait "$pid" 2>/dev/null
check "server down" 2 "deny: context deadline exceeded" "$target" "$work/good.json"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
