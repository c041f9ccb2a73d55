"""Fail-closed rules: no RPC error, deadline or unreadable answer is ever
an allow. A fake server (the real one never sends these) answers with
UNSPECIFIED or an enum value the client does not know, or too slowly."""
import asyncio
import socket
import time
from concurrent import futures

import grpc
import pytest

import toolgate
import toolgate.aio
from toolgate.v1 import toolgate_pb2 as pb
from toolgate.v1 import toolgate_pb2_grpc as pb_grpc

CALL = {"role": "assistant", "tool_calls": [{
    "id": "c", "type": "function",
    "function": {"name": "update_ticket", "arguments": "{}"}}]}


class Fake(pb_grpc.ToolGateServicer):
    """Answers every call with the value it was given (or sleeps)."""

    def __init__(self, value=0, sleep=0.0):
        self.value, self.sleep = value, sleep

    def OpenRun(self, request, context):
        return pb.OpenRunResponse(run_id="r", run_token="t",
                                  snapshot_id="sha256:0")

    def CloseRun(self, request, context):
        return pb.CloseRunResponse()

    def ValidateToolCall(self, request, context):
        time.sleep(self.sleep)
        return pb.ValidateToolCallResponse(
            decision=self.value, calls=[pb.ToolCall(
                name="update_ticket", arguments_json="{}")])

    def ValidateToolOutput(self, request, context):
        return pb.ValidateToolOutputResponse(verdict=self.value)

    def ExtractVerdict(self, request, context):
        return pb.ExtractVerdictResponse(outcome=self.value)

    def AwaitApproval(self, request, context):
        return pb.AwaitApprovalResponse(state=self.value)


@pytest.fixture()
def fake():
    servers = []

    def start(servicer):
        server = grpc.server(futures.ThreadPoolExecutor(4))
        pb_grpc.add_ToolGateServicer_to_server(servicer, server)
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        servers.append(server)
        return f"127.0.0.1:{port}"

    yield start
    for s in servers:
        s.stop(0)


CHECKS = {
    "validate": lambda run: run.validate(CALL),
    "check_output": lambda run: run.check_output("t", {}),
    "extract_verdict": lambda run: run.extract_verdict("x"),
    "await_approval": lambda run: run.await_approval("apr_1", timeout=0),
}


@pytest.mark.parametrize("value,code", [(0, "UNSPECIFIED"),
                                        (99, "UNKNOWN_ENUM")])
@pytest.mark.parametrize("method", sorted(CHECKS))
def test_unreadable_enum_is_deny(fake, value, code, method):
    with toolgate.Gate(fake(Fake(value))) as gate:
        run = gate.open_run("sha256:0")
        with pytest.raises(toolgate.DenyError) as e:
            CHECKS[method](run)
    assert e.value.code == code


def test_allow_without_calls_is_deny(fake):
    class NoCalls(Fake):
        def ValidateToolCall(self, request, context):
            return pb.ValidateToolCallResponse(decision=pb.DECISION_ALLOW)

    with toolgate.Gate(fake(NoCalls())) as gate:
        with pytest.raises(toolgate.DenyError) as e:
            gate.open_run("sha256:0").validate(CALL)
    assert e.value.code == "NO_CALLS"


def test_allow_with_a_call_missing_its_arguments_is_deny(fake):
    class NoArguments(Fake):
        def ValidateToolCall(self, request, context):
            return pb.ValidateToolCallResponse(
                decision=pb.DECISION_ALLOW,
                calls=[pb.ToolCall(id="1", name="t")])

    with toolgate.Gate(fake(NoArguments())) as gate:
        with pytest.raises(toolgate.DenyError) as e:
            gate.open_run("sha256:0").validate(CALL)
    assert e.value.code == "UNREADABLE"


def test_pass_without_result_is_deny(fake):
    with toolgate.Gate(fake(Fake(pb.OUTCOME_PASS))) as gate:
        with pytest.raises(toolgate.DenyError) as e:
            gate.open_run("sha256:0").extract_verdict("x")
    assert e.value.code == "UNREADABLE"


def test_deadline_is_deny(fake):
    with toolgate.Gate(fake(Fake(pb.DECISION_ALLOW, sleep=2)),
                       timeout=0.2) as gate:
        run = gate.open_run("sha256:0")
        with pytest.raises(toolgate.DenyError) as e:
            run.validate(CALL)
    assert e.value.code == "DEADLINE_EXCEEDED"


def test_server_error_is_deny(fake):
    class Failing(Fake):
        def ValidateToolCall(self, request, context):
            context.abort(grpc.StatusCode.INTERNAL, "boom")

    with toolgate.Gate(fake(Failing())) as gate:
        with pytest.raises(toolgate.DenyError) as e:
            gate.open_run("sha256:0").validate(CALL)
    assert (e.value.code, "boom" in e.value.detail) == ("INTERNAL", True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_server_down_is_deny():
    with toolgate.Gate(f"127.0.0.1:{free_port()}", timeout=1) as gate:
        with pytest.raises(toolgate.DenyError) as e:
            gate.stateless("sha256:0").validate(CALL)
    assert e.value.code in ("UNAVAILABLE", "DEADLINE_EXCEEDED")


def test_gated_function_not_called_when_server_down():
    seen = []
    with toolgate.Gate(f"127.0.0.1:{free_port()}", timeout=1) as gate:
        fn = gate.wrap(lambda **a: seen.append(a), snapshot="sha256:0",
                       tool="update_ticket")
        with pytest.raises(toolgate.DenyError):
            fn(ticket_id="TCK-000001", priority="low")
    assert seen == []


@pytest.mark.parametrize("value,code", [(0, "UNSPECIFIED"),
                                        (99, "UNKNOWN_ENUM")])
def test_async_unreadable_enum_is_deny(fake, value, code):
    target = fake(Fake(value))

    async def go():
        async with toolgate.aio.Gate(target) as gate:
            run = await gate.open_run("sha256:0")
            with pytest.raises(toolgate.DenyError) as e:
                await run.validate(CALL)
            return e.value.code

    assert asyncio.run(go()) == code


def test_async_deadline_and_server_down_are_deny(fake):
    slow = fake(Fake(pb.DECISION_ALLOW, sleep=2))
    down = f"127.0.0.1:{free_port()}"

    async def go(target):
        async with toolgate.aio.Gate(target, timeout=0.3) as gate:
            run = await gate.stateless("sha256:0")
            with pytest.raises(toolgate.DenyError) as e:
                await run.validate(CALL)
            return e.value.code

    assert asyncio.run(go(slow)) == "DEADLINE_EXCEEDED"
    assert asyncio.run(go(down)) in ("UNAVAILABLE", "DEADLINE_EXCEEDED")
