#!/bin/bash
# The README's walkthrough, command for command, against a real sidecar.
set -uo pipefail
R="${TEST_SRCDIR}/${TEST_WORKSPACE}"
C="$R/client/toolgatectl"
WORK="$(mktemp -d "${TEST_TMPDIR:-/tmp}/walk.XXXXXX")"
cd "$WORK"
"$R/server/toolgate" --listen=127.0.0.1:0 --port_file="$WORK/port" 2>server.log &
SERVER=$!
for _ in $(seq 100); do [ -s port ] && break; sleep 0.1; done
export TOOLGATE_ADDR="127.0.0.1:$(cat port)"

failures=0
check() {  # check NAME EXPECTED_EXIT COMMAND...
  local name=$1 want=$2; shift 2
  "$@" > out.json 2> err.txt
  local got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL $name: exit $got, want $want"; cat out.json err.txt; failures=$((failures + 1))
  else
    echo "ok   $name"
  fi
}
expect() {  # expect NAME JQ_FILTER: the filter must print true for out.json
  if [ "$(jq -r "$2" out.json)" != "true" ]; then
    echo "FAIL $1: $2"; cat out.json; failures=$((failures + 1))
  fi
}

check health 0 "$C" health

check create-snapshot 0 "$C" create-snapshot --manifest "$R/schemas/tickets.openai.json"
SNAP=$(jq -r .snapshot_id out.json)
expect snapshot-id '.snapshot_id | test("^sha256:[0-9a-f]{64}$")'
check create-again 0 "$C" create-snapshot --manifest "$R/schemas/tickets.openai.json"
expect same-id ".snapshot_id == \"$SNAP\""

check open-run 0 "$C" open-run --snapshot "$SNAP" --model gpt-4.1
cp out.json run.json

cat > call.json <<'JSON'
{"role": "assistant", "content": null,
 "tool_calls": [{"id": "call_1", "type": "function",
   "function": {"name": "update_ticket",
                "arguments": "{\"ticket_id\": \"TCK-004242\", \"priority\": \"urgent\"}"}}]}
JSON
check validate-allow 0 "$C" validate --run-file run.json --native call.json
expect allow '.decision == "DECISION_ALLOW"'
expect exact-args '.calls[0].arguments_json == "{\"priority\":\"urgent\",\"ticket_id\":\"TCK-004242\"}"'

sed 's/urgent/critial/' call.json > bad.json
check validate-reject 1 "$C" validate --run-file run.json --native bad.json
expect reject '.decision == "DECISION_REJECT"'
expect pointer '.violations[0].pointer == "/priority" and .violations[0].keyword == "enum"'
expect attempts '.attempt == 1 and .attempts_left == 4'
expect prompt '.repair_prompt | fromjson | .attempt == "1/5"'

check close-run 0 "$C" close-run --run-file run.json
check validate-closed 2 "$C" validate --run-file run.json --native call.json

kill -TERM "$SERVER"
wait "$SERVER"
status=$?
[ "$status" -eq 0 ] || { echo "FAIL sidecar exit $status after SIGTERM"; failures=$((failures + 1)); }
echo "walkthrough: $failures failure(s)"
[ "$failures" -eq 0 ]
