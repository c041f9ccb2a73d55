"""Client overhead per validate call, Python: toolgate.Run.validate versus
the raw generated stub, against a real server.

    PYTHONPATH=<installed toolgate> /usr/bin/python3 bench_python.py TARGET [N]

Three timings per call (time.perf_counter_ns), N calls each after 500
warm-up calls, raw and client alternating call by call so drift (the
machine is shared) hits both alike:
  raw     stub.ValidateToolCall(prebuilt request)
  client  run.validate(message dict) -> Decision (request built from the
          dict, response read into a Decision)
  local   the client's own work alone, no RPC: building the request from the
          dict plus reading a canned response into a Decision
Prints one JSON line: p50/p99 in microseconds.
"""
import json
import sys
import time

import toolgate
from toolgate import _requests as rq
from toolgate._types import Decision
from toolgate.v1 import toolgate_pb2 as pb
from toolgate.v1 import toolgate_pb2_grpc as pb_grpc
import grpc

MANIFEST = [{"type": "function", "function": {
    "name": "update_ticket", "parameters": {
        "type": "object",
        "properties": {"ticket_id": {"type": "string", "pattern": "^TCK-[0-9]{6}$"},
                       "priority": {"enum": ["low", "normal", "high", "urgent"]}},
        "required": ["ticket_id", "priority"], "additionalProperties": False}}}]
MESSAGE = {"role": "assistant", "content": None, "tool_calls": [{
    "id": "call_1", "type": "function", "function": {
        "name": "update_ticket",
        "arguments": json.dumps({"ticket_id": "TCK-004242", "priority": "urgent"})}}]}


def pct(samples, p):
    s = sorted(samples)
    return s[min(len(s) - 1, int(len(s) * p / 100))] / 1000


def main():
    target, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5000
    gate = toolgate.Gate(target, timeout=10)
    snapshot = gate.create_snapshot(MANIFEST)
    run = gate.open_run(snapshot, model="bench", max_consecutive_rejects=0)
    stub = pb_grpc.ToolGateStub(grpc.insecure_channel(target))
    raw_request = rq.validate(run._scope, MESSAGE, "strict", "")
    canned = stub.ValidateToolCall(raw_request, timeout=10)
    assert Decision.read(canned).allowed
    raw, client, local = [], [], []
    for _ in range(500):
        stub.ValidateToolCall(raw_request, timeout=10)
        run.validate(MESSAGE)
    for i in range(2 * n):
        t = time.perf_counter_ns()
        if i % 2:
            run.validate(MESSAGE)
            client.append(time.perf_counter_ns() - t)
        else:
            stub.ValidateToolCall(raw_request, timeout=10)
            raw.append(time.perf_counter_ns() - t)
    for _ in range(n):
        t = time.perf_counter_ns()
        rq.validate(run._scope, MESSAGE, "strict", "")
        Decision.read(canned)
        local.append(time.perf_counter_ns() - t)
    run.close()
    out = {"language": "python", "calls": len(raw)}
    for name, s in (("raw", raw), ("client", client), ("local", local)):
        out[name] = {"p50_us": round(pct(s, 50), 1), "p99_us": round(pct(s, 99), 1)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
