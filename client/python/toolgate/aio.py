"""The asyncio client (grpc.aio): the same API as toolgate.Gate, awaited.

    async with toolgate.aio.Gate("127.0.0.1:50051") as gate:
        async with await gate.open_run(snapshot_id, model="m") as run:
            decision = await run.validate(message)

Thread-safety: use a Gate and its runs from one event loop.
"""
import asyncio
import functools
import inspect
import time
from typing import Any, Callable, Dict, Iterable, Optional

import grpc

from toolgate import _requests as rq
from toolgate import _stream
from toolgate import _trace
from toolgate import _types
from toolgate._types import (Decision, DenyError, OutputCheck, Verdict,
                             approval_state)
from toolgate.v1 import toolgate_pb2 as pb
from toolgate.v1 import toolgate_pb2_grpc as pb_grpc

_AWAIT_SLICE_MS = 30_000


class Gate:
    """Like toolgate.Gate, on a grpc.aio channel."""

    def __init__(self, target: str, *, credentials=None,
                 admin_token: Optional[str] = None, timeout: float = 5.0,
                 options: Iterable = ()):
        if credentials is not None:
            self._channel = grpc.aio.secure_channel(target, credentials,
                                                    options=list(options))
        else:
            self._channel = grpc.aio.insecure_channel(target,
                                                      options=list(options))
        self._stub = pb_grpc.ToolGateStub(self._channel)
        self._admin = (("authorization", "Bearer " + admin_token),) \
            if admin_token else ()
        self.timeout = timeout

    async def _call(self, method: str, request,
                    timeout: Optional[float] = None):
        metadata = self._admin if method in rq.ADMIN_METHODS else ()
        trace = _trace.headers()
        if trace:
            metadata = metadata + trace
        try:
            return await getattr(self._stub, method)(
                request, timeout=self.timeout if timeout is None else timeout,
                metadata=metadata)
        except grpc.RpcError as err:
            raise _types.rpc_deny(err, method) from None
        except asyncio.TimeoutError:
            raise DenyError("DEADLINE_EXCEEDED", method) from None

    async def close(self) -> None:
        await self._channel.close()

    async def __aenter__(self) -> "Gate":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    async def create_snapshot(self, manifest: Any, *, format: str = "auto",
                              name: str = "") -> str:
        r = await self._call("CreateSnapshot",
                             rq.create_snapshot(manifest, format, name))
        return r.snapshot_id

    async def resolve_snapshot(self, snapshot: str) -> str:
        if snapshot.startswith("sha256:"):
            return snapshot
        r = await self._call("GetSnapshot", pb.GetSnapshotRequest(name=snapshot))
        return r.snapshot_id

    async def open_run(self, snapshot: str, *, model: str = "",
                       context: Optional[Dict[str, str]] = None,
                       max_consecutive_rejects: int = 0,
                       protected_texts: Iterable[str] = ()) -> "Run":
        request = rq.open_run(await self.resolve_snapshot(snapshot), model,
                              context, max_consecutive_rejects,
                              protected_texts)
        r = await self._call("OpenRun", request)
        return Run(self, rq.Scope(r.snapshot_id, r.run_id, r.run_token))

    async def stateless(self, snapshot: str) -> "Run":
        return Run(self, rq.Scope(await self.resolve_snapshot(snapshot)))

    async def decide_approval(self, approval_id: str, *, approve: bool,
                              approver: str, reason: str = "") -> str:
        r = await self._call("DecideApproval", pb.DecideApprovalRequest(
            approval_id=approval_id, approve=approve, approver=approver,
            reason=reason))
        return approval_state(r.approval)


class Run:
    """Like toolgate.Run, every method a coroutine."""

    def __init__(self, gate: Gate, scope: rq.Scope):
        self._gate = gate
        self._scope = scope
        self._closed = False
        self._output_tools: Optional[frozenset] = None

    run_id = property(lambda self: self._scope.run_id)
    snapshot_id = property(lambda self: self._scope.snapshot_id)

    async def __aenter__(self) -> "Run":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    async def close(self) -> None:
        if self._closed or not self._scope.run_id:
            return
        self._closed = True
        await self._gate._call("CloseRun", pb.CloseRunRequest(
            run_id=self._scope.run_id, run_token=self._scope.run_token))

    async def reset(self) -> None:
        await self._gate._call("ResetRun", pb.ResetRunRequest(
            run_id=self._scope.run_id, run_token=self._scope.run_token))

    async def validate(self, model_output: Any, *, repair: str = "strict",
                       approval_id: str = "") -> Decision:
        request = rq.validate(self._scope, model_output, repair, approval_id)
        return Decision.read(await self._gate._call("ValidateToolCall",
                                                    request))

    async def validate_stream(self, events: Any, *,
                              format: Optional[str] = None,
                              repair: str = "strict", approval_id: str = "",
                              timeout: float = 300.0) -> Decision:
        """Run.validate_stream for an async iterable (or a plain one) of
        events, e.g. an SDK's async stream."""
        if format is not None:
            _stream.format_number(format)
        r = await self._gate._call(
            "ValidateToolCallStream",
            _stream.async_requests(self._scope, events, format, repair,
                                   approval_id),
            timeout=timeout)
        return Decision.read(r)

    async def check_output(self, tool: str, result: Any, *,
                           content_type: str = "application/json",
                           http_status: int = -1,
                           mode: str = "fail_closed") -> OutputCheck:
        request = rq.check_output(self._scope, tool, result, content_type,
                                  http_status, mode)
        return OutputCheck.read(await self._gate._call("ValidateToolOutput",
                                                       request))

    async def extract_verdict(self, envelope: str, *, result_schema: Any = None,
                              repair: str = "strict") -> Verdict:
        request = rq.extract_verdict(self._scope, envelope, result_schema,
                                     repair)
        return Verdict.read(await self._gate._call("ExtractVerdict", request))

    async def await_approval(self, decision: Any, *,
                             timeout: float = 300.0) -> str:
        approval_id = rq.approval_id_of(decision)
        end = time.monotonic() + timeout
        while True:
            left_ms = max(0, int((end - time.monotonic()) * 1000))
            wait_ms = min(left_ms, _AWAIT_SLICE_MS)
            r = await self._gate._call(
                "AwaitApproval",
                rq.await_approval(self._scope, approval_id, wait_ms),
                timeout=wait_ms / 1000 + self._gate.timeout)
            state = approval_state(r)
            if state != "PENDING" or left_ms <= wait_ms:
                return state

    async def output_schema_tools(self) -> frozenset:
        if self._output_tools is None:
            r = await self._gate._call("GetSnapshot", pb.GetSnapshotRequest(
                snapshot_id=self._scope.snapshot_id))
            self._output_tools = rq.tools_with_output_schema(r.manifest_json)
        return self._output_tools


def gated(run: Run, tool: Optional[str] = None, *,
          check_output: Optional[bool] = None) -> Callable:
    """toolgate.gated for an async Run; fn may be sync or async."""

    def decorate(fn: Callable) -> Callable:
        name = tool or fn.__name__

        @functools.wraps(fn)
        async def wrapper(**arguments):
            decision = await run.validate(rq.gated_call(name, arguments))
            call = rq.allowed_call(decision, name)
            result = fn(**call.arguments)
            if inspect.isawaitable(result):
                result = await result
            check = check_output if check_output is not None else (
                name in await run.output_schema_tools())
            if check:
                verdict = await run.check_output(name, result)
                if not verdict.valid:
                    raise DenyError("OUTPUT_INVALID",
                                    f"{name}: {verdict.stop_reason}", verdict)
            return result

        wrapper.tool = name
        return wrapper

    return decorate
