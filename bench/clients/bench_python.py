"""Client overhead per validate call, Python: toolgate.Run.validate versus
the raw generated stub, against a real server.

    PYTHONPATH=<installed toolgate> /usr/bin/python3 bench_python.py TARGET [N]

Four timings per call (time.perf_counter_ns), N calls each after 500
warm-up calls, the three RPC variants alternating call by call so drift
(the machine is shared) hits them alike:
  raw     stub.ValidateToolCall(prebuilt request): the floor, no work at all
  same    the raw stub doing the least any caller must: json.dumps the
          message into the request, check the decision is ALLOW, json.loads
          the call's arguments (the client's overhead is measured over this)
  client  run.validate(message dict) -> Decision (request built from the
          dict, response read into a Decision)
  local   the client's own work alone, no RPC: building the request from the
          dict plus reading a canned response into a Decision
Prints one JSON line: p50/p99 in microseconds, and the client's overhead
in % of the raw and of the same-work call.
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
    ids = dict(run_id=run.run_id, run_token=run._scope.run_token)

    def same_work():
        r = stub.ValidateToolCall(pb.ValidateToolCallRequest(
            **ids, native_json=json.dumps(MESSAGE)), timeout=10)
        if r.decision != pb.DECISION_ALLOW:
            raise RuntimeError("bench call not allowed")
        return [json.loads(c.arguments_json) for c in r.calls]

    variants = {"raw": lambda: stub.ValidateToolCall(raw_request, timeout=10),
                "same": same_work, "client": lambda: run.validate(MESSAGE)}
    for _ in range(500):
        for call in variants.values():
            call()
    samples = {name: [] for name in variants}
    for _ in range(n):
        for name, call in variants.items():
            t = time.perf_counter_ns()
            call()
            samples[name].append(time.perf_counter_ns() - t)
    local = []
    for _ in range(n):
        t = time.perf_counter_ns()
        rq.validate(run._scope, MESSAGE, "strict", "")
        Decision.read(canned)
        local.append(time.perf_counter_ns() - t)
    run.close()
    samples["local"] = local
    out = {"language": "python", "calls": n}
    for name, s in samples.items():
        out[name] = {"p50_us": round(pct(s, 50), 1), "p99_us": round(pct(s, 99), 1)}
    for base in ("raw", "same"):  # the client's overhead, % of the base call
        out[f"client_over_{base}_pct"] = {
            f"p{p}": round(100 * (pct(samples["client"], p) /
                                  pct(samples[base], p) - 1), 1)
            for p in (50, 99)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
