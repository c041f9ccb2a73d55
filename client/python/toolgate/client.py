"""The blocking client: Gate, Run and the gated decorator.

Thread-safety: a Gate (one gRPC channel) may be shared by threads. A Run
may be used from several threads; its own state is only whether it was
closed and a cached set of tool names.
"""
import functools
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

# AwaitApproval waits on a server thread; wait in slices of this many ms.
_AWAIT_SLICE_MS = 30_000


class Gate:
    """A connection to a toolgate sidecar.

    target: "host:port" (or any gRPC target). credentials: a
    grpc.ChannelCredentials for TLS (plaintext when None). admin_token: sent
    as "authorization: Bearer ..." on admin calls. timeout: the deadline of
    each call, in seconds; a call past it raises DenyError.
    """

    def __init__(self, target: str, *, credentials=None,
                 admin_token: Optional[str] = None, timeout: float = 5.0,
                 options: Iterable = ()):
        if credentials is not None:
            self._channel = grpc.secure_channel(target, credentials,
                                                options=list(options))
        else:
            self._channel = grpc.insecure_channel(target,
                                                  options=list(options))
        self._stub = pb_grpc.ToolGateStub(self._channel)
        self._admin = (("authorization", "Bearer " + admin_token),) \
            if admin_token else ()
        self.timeout = timeout

    def _call(self, method: str, request, timeout: Optional[float] = None):
        metadata = self._admin if method in rq.ADMIN_METHODS else ()
        trace = _trace.headers()
        if trace:
            metadata = metadata + trace
        try:
            return getattr(self._stub, method)(
                request, timeout=self.timeout if timeout is None else timeout,
                metadata=metadata)
        except grpc.RpcError as err:
            raise _types.rpc_deny(err, method) from None

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> "Gate":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def create_snapshot(self, manifest: Any, *, format: str = "auto",
                        name: str = "") -> str:
        """Compiles a manifest (dict, list or JSON text); returns its id."""
        request = rq.create_snapshot(manifest, format, name)
        return self._call("CreateSnapshot", request).snapshot_id

    def resolve_snapshot(self, snapshot: str) -> str:
        """A snapshot id as given, or the id of the newest one so named."""
        if snapshot.startswith("sha256:"):
            return snapshot
        return self._call("GetSnapshot",
                          pb.GetSnapshotRequest(name=snapshot)).snapshot_id

    def open_run(self, snapshot: str, *, model: str = "",
                 context: Optional[Dict[str, str]] = None,
                 max_consecutive_rejects: int = 0,
                 protected_texts: Iterable[str] = ()) -> "Run":
        """Opens a run pinning a snapshot (id or name). Use it as a context
        manager so the run is closed."""
        request = rq.open_run(self.resolve_snapshot(snapshot), model, context,
                              max_consecutive_rejects, protected_texts)
        r = self._call("OpenRun", request)
        return Run(self, rq.Scope(r.snapshot_id, r.run_id, r.run_token))

    def stateless(self, snapshot: str) -> "Run":
        """A scope validating against a snapshot without a run (no breaker,
        no approvals). close() does nothing."""
        return Run(self, rq.Scope(self.resolve_snapshot(snapshot)))

    def decide_approval(self, approval_id: str, *, approve: bool,
                        approver: str, reason: str = "") -> str:
        """Admin: approves or denies a pending approval; returns its state."""
        r = self._call("DecideApproval", pb.DecideApprovalRequest(
            approval_id=approval_id, approve=approve, approver=approver,
            reason=reason))
        return approval_state(r.approval)

    def wrap(self, fn: Callable, *, snapshot: str, tool: str = None,
             check_output: Optional[bool] = None) -> Callable:
        """gated() against a snapshot without a run."""
        return gated(self.stateless(snapshot), tool=tool,
                     check_output=check_output)(fn)


class Run:
    """A run (or a stateless scope): validate calls, check outputs, read
    verdicts, await approvals. Every method raises DenyError instead of
    answering anything it cannot read as a decision."""

    def __init__(self, gate: Gate, scope: rq.Scope):
        self._gate = gate
        self._scope = scope
        self._closed = False
        self._output_tools: Optional[frozenset] = None

    run_id = property(lambda self: self._scope.run_id)
    snapshot_id = property(lambda self: self._scope.snapshot_id)

    def __enter__(self) -> "Run":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Closes the run (once; later calls do nothing)."""
        if self._closed or not self._scope.run_id:
            return
        self._closed = True
        self._gate._call("CloseRun", pb.CloseRunRequest(
            run_id=self._scope.run_id, run_token=self._scope.run_token))

    def reset(self) -> None:
        """Closes an open misformat breaker (after a human looked)."""
        self._gate._call("ResetRun", pb.ResetRunRequest(
            run_id=self._scope.run_id, run_token=self._scope.run_token))

    def validate(self, model_output: Any, *, repair: str = "strict",
                 approval_id: str = "") -> Decision:
        """Decides whether the call(s) in model_output may run.

        model_output: an OpenAI ChatCompletion/ChatCompletionMessage or
        Responses output items, an Anthropic Message or content blocks, a
        Gemini response, dicts of those, or text.
        """
        request = rq.validate(self._scope, model_output, repair, approval_id)
        return Decision.read(self._gate._call("ValidateToolCall", request))

    def validate_stream(self, events: Iterable[Any], *,
                        format: Optional[str] = None, repair: str = "strict",
                        approval_id: str = "",
                        timeout: float = 300.0) -> Decision:
        """Decides on a model's streamed output as it arrives: events are
        SSE data payloads ("[DONE]" included) or what an SDK stream yields
        (OpenAI chunks / Responses events, Anthropic stream events, Gemini
        chunks). format: openai_chat, openai_responses, anthropic_messages
        or gemini (default: read from the first event). timeout bounds the
        whole stream. An error in `events` cancels the call: DenyError."""
        if format is not None:
            _stream.format_number(format)
        r = self._gate._call(
            "ValidateToolCallStream",
            _stream.requests(self._scope, events, format, repair, approval_id),
            timeout=timeout)
        return Decision.read(r)

    def check_output(self, tool: str, result: Any, *,
                     content_type: str = "application/json",
                     http_status: int = -1,
                     mode: str = "fail_closed") -> OutputCheck:
        """Checks what a tool returned (dict/list as JSON, str, bytes).
        http_status -1 means the tool has no HTTP transport."""
        request = rq.check_output(self._scope, tool, result, content_type,
                                  http_status, mode)
        return OutputCheck.read(self._gate._call("ValidateToolOutput",
                                                 request))

    def extract_verdict(self, envelope: str, *, result_schema: Any = None,
                        repair: str = "strict") -> Verdict:
        """Reads the verdict in the last fenced JSON block of envelope."""
        request = rq.extract_verdict(self._scope, envelope, result_schema,
                                     repair)
        return Verdict.read(self._gate._call("ExtractVerdict", request))

    def await_approval(self, decision: Any, *, timeout: float = 300.0) -> str:
        """Waits for a NEEDS_APPROVAL decision (or an approval id) to be
        decided; returns APPROVED, DENIED, EXPIRED, USED or, after timeout
        seconds, PENDING. Only APPROVED lets the call run: validate the same
        output again with approval_id=decision.approval_id."""
        approval_id = rq.approval_id_of(decision)
        end = time.monotonic() + timeout
        while True:
            left_ms = max(0, int((end - time.monotonic()) * 1000))
            wait_ms = min(left_ms, _AWAIT_SLICE_MS)
            r = self._gate._call(
                "AwaitApproval",
                rq.await_approval(self._scope, approval_id, wait_ms),
                timeout=wait_ms / 1000 + self._gate.timeout)
            state = approval_state(r)
            if state != "PENDING" or left_ms <= wait_ms:
                return state

    def output_schema_tools(self) -> frozenset:
        """Names of the snapshot's tools that declare an output_schema."""
        if self._output_tools is None:
            r = self._gate._call("GetSnapshot", pb.GetSnapshotRequest(
                snapshot_id=self._scope.snapshot_id))
            self._output_tools = rq.tools_with_output_schema(r.manifest_json)
        return self._output_tools

    def wrap(self, fn: Callable, *, tool: str = None,
             check_output: Optional[bool] = None) -> Callable:
        return gated(self, tool=tool, check_output=check_output)(fn)


def gated(run: Run, tool: Optional[str] = None, *,
          check_output: Optional[bool] = None) -> Callable:
    """Decorates a tool function: its keyword arguments are validated as a
    call of `tool` (default: the function's name) first, and the function
    runs only on ALLOW, with the canonical arguments. Its result is checked
    when the tool declares an output_schema (or check_output=True); an
    INVALID result raises DenyError instead of being returned."""

    def decorate(fn: Callable) -> Callable:
        name = tool or fn.__name__

        @functools.wraps(fn)
        def wrapper(**arguments):
            decision = run.validate(rq.gated_call(name, arguments))
            call = rq.allowed_call(decision, name)
            result = fn(**call.arguments)
            check = check_output if check_output is not None else (
                name in run.output_schema_tools())
            if check:
                verdict = run.check_output(name, result)
                if not verdict.valid:
                    raise DenyError("OUTPUT_INVALID",
                                    f"{name}: {verdict.stop_reason}", verdict)
            return result

        wrapper.tool = name
        return wrapper

    return decorate
