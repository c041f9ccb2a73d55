"""Request builders shared by the blocking and the asyncio clients."""
import json
from typing import Any, Dict, Iterable, Optional

from toolgate import _outputs, _types
from toolgate.v1 import toolgate_pb2 as pb

# Methods that need the admin token (README: roles).
ADMIN_METHODS = frozenset({"CreateSnapshot", "DeleteSnapshot",
                           "DecideApproval", "ListApprovals"})


class Scope:
    """What a run-scoped (or stateless) request names: set by Run."""

    def __init__(self, snapshot_id: str, run_id: str = "",
                 run_token: str = ""):
        self.snapshot_id = snapshot_id
        self.run_id = run_id
        self.run_token = run_token
        # The same fields as keyword arguments, for the per-call request.
        self.ids = ({"run_id": run_id, "run_token": run_token} if run_id
                    else {"snapshot_id": snapshot_id})

    def fill(self, request) -> None:
        if self.run_id:
            request.run_id = self.run_id
            request.run_token = self.run_token
        else:
            request.snapshot_id = self.snapshot_id


def manifest_text(manifest: Any) -> str:
    if isinstance(manifest, bytes):
        return manifest.decode("utf-8")
    if isinstance(manifest, str):
        return manifest
    return json.dumps(_outputs.to_plain(manifest), ensure_ascii=False)


def create_snapshot(manifest: Any, fmt: str, name: str):
    return pb.CreateSnapshotRequest(manifest_json=manifest_text(manifest),
                                    format=_types.manifest_format(fmt),
                                    name=name)


def open_run(snapshot_id: str, model: str, context: Optional[Dict[str, str]],
             max_consecutive_rejects: int, protected_texts: Iterable[str],
             text_format: Optional[str] = None):
    return pb.OpenRunRequest(
        snapshot_id=snapshot_id, model=model,
        context={str(k): str(v) for k, v in (context or {}).items()},
        max_consecutive_rejects=max_consecutive_rejects,
        protected_texts=list(protected_texts),
        text_format=_types.text_format(text_format))


def validate(scope: Scope, output: Any, repair: str, approval_id: str,
             text_format: Optional[str] = None):
    field, value = _outputs.model_output(output)
    return pb.ValidateToolCallRequest(
        **{field: value}, **scope.ids, repair=_types.repair_policy(repair),
        approval_id=approval_id, text_format=_types.text_format(text_format))


def check_output(scope: Scope, tool: str, result: Any, content_type: str,
                 http_status: int, mode: str):
    if isinstance(result, bytes):
        body = result
    elif isinstance(result, str):
        body = result.encode("utf-8")
    else:
        body = json.dumps(_outputs.to_plain(result),
                          ensure_ascii=False).encode("utf-8")
    request = pb.ValidateToolOutputRequest(
        tool_name=tool, content_type=content_type, http_status=http_status,
        body=body, mode=_types.output_mode(mode))
    scope.fill(request)
    return request


def extract_verdict(scope: Scope, envelope: str, result_schema: Any,
                    repair: str):
    schema = "" if result_schema is None else manifest_text(result_schema)
    request = pb.ExtractVerdictRequest(
        envelope=envelope, result_schema=schema,
        repair=_types.repair_policy(repair))
    scope.fill(request)
    return request


def await_approval(scope: Scope, approval_id: str, timeout_ms: int):
    return pb.AwaitApprovalRequest(run_id=scope.run_id,
                                   run_token=scope.run_token,
                                   approval_id=approval_id,
                                   timeout_ms=timeout_ms)


def approval_id_of(decision_or_id: Any) -> str:
    approval_id = getattr(decision_or_id, "approval_id", decision_or_id)
    if not isinstance(approval_id, str) or not approval_id:
        raise _types.DenyError("NO_APPROVAL",
                               "no approval id to wait for (the decision was "
                               "not NEEDS_APPROVAL in a run)")
    return approval_id


def gated_call(tool: str, arguments: Dict[str, Any]) -> Dict[str, Any]:
    """The OpenAI-shaped message a gated function's arguments are sent as."""
    return {"role": "assistant", "tool_calls": [{
        "id": "call_gated", "type": "function",
        "function": {"name": tool,
                     "arguments": json.dumps(_outputs.to_plain(arguments),
                                             ensure_ascii=False)}}]}


def tools_with_output_schema(manifest_json: str) -> frozenset:
    manifest = json.loads(manifest_json)
    return frozenset(t["name"] for t in manifest.get("tools", [])
                     if t.get("output_schema") is not None)


def allowed_call(decision: "_types.Decision", tool: str) -> "_types.Call":
    """The one call a gated function may run with, or DenyError."""
    if not decision.allowed:
        raise _types.DenyError(
            "NOT_ALLOWED", f"{tool}: {decision.decision} "
            f"{decision.stop_reason or decision.message}".strip(), decision)
    if len(decision.calls) != 1 or decision.calls[0].name != tool:
        raise _types.DenyError("NOT_ALLOWED",
                               f"{tool}: ALLOW for a different call", decision)
    return decision.calls[0]
