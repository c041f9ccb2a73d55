"""Result types and the fail-closed reading of every response.

Each reader turns a response into a plain value and raises DenyError for an
enum value it does not know (UNSPECIFIED included): the server never sends
one, so seeing one means something is wrong, and wrong must not read as
ALLOW / PASS / VALID.

Results are NamedTuples: immutable, and about half the cost of frozen
dataclasses to build, which matters on every validate call.
"""
import json
from decimal import Decimal
from typing import Any, Dict, List, NamedTuple, Optional

import grpc

from toolgate.v1 import toolgate_pb2 as pb


class DenyError(Exception):
    """The call must not run: an RPC failed, timed out, or the answer was
    not a decision this client knows, or (from gated functions) the decision
    was not ALLOW.

    Attributes: code (a grpc.StatusCode name, "UNSPECIFIED" or
    "UNKNOWN_ENUM" or "NOT_ALLOWED"), detail (text), decision (the Decision
    when one was read, else None).
    """

    def __init__(self, code: str, detail: str, decision: Any = None):
        super().__init__(f"toolgate deny ({code}): {detail}")
        self.code = code
        self.detail = detail
        self.decision = decision


def rpc_deny(err: grpc.RpcError, method: str) -> DenyError:
    code = err.code() if hasattr(err, "code") else None
    details = err.details() if hasattr(err, "details") else str(err)
    name = code.name if code is not None else "UNKNOWN"
    return DenyError(name, f"{method}: {details}")


_ENUM_NAMES: Dict[Any, Dict[int, str]] = {}


def _enum_name(enum, prefix: str, value: int, what: str) -> str:
    known = _ENUM_NAMES.get(enum)
    if known is None:  # number -> name without the prefix, built once
        known = {v.number: v.name[len(prefix):] for v in enum.DESCRIPTOR.values}
        _ENUM_NAMES[enum] = known
    short = known.get(value)
    if short is None:
        raise DenyError("UNKNOWN_ENUM", f"{what} {value} is not known")
    if short == "UNSPECIFIED":
        raise DenyError("UNSPECIFIED", f"{what} is UNSPECIFIED")
    return short


class Violation(NamedTuple):
    code: str
    tool: str
    pointer: str
    keyword: str
    expected: str
    received: str
    message: str
    schema_pointer: str
    call_index: int

    @staticmethod
    def read(v) -> "Violation":
        return Violation(v.code, v.tool, v.pointer, v.keyword, v.expected,
                         v.received, v.message, v.schema_pointer, v.call_index)


def _exact_float(text: str) -> float:
    """A JSON number with a fraction or exponent: the double it names, when
    that double's shortest form is the number written, which is how the
    sidecar writes every such number (README: numbers are never changed
    silently). Anything else would run a value that was not validated:
    DenyError. (Integers need no check: Python's are exact.)"""
    value = float(text)
    if Decimal(repr(value)) != Decimal(text):
        raise DenyError("UNREADABLE", f"the number {text[:40]} does not read "
                        "back exactly")
    return value


def _no_constant(name: str) -> Any:
    raise DenyError("UNREADABLE", f"{name} is not a JSON number")


def loads_exact(text: str, what: str) -> Any:
    """Validated JSON (arguments, a verdict's result) as Python values equal
    to what the sidecar checked, or DenyError."""
    try:
        return json.loads(text, parse_float=_exact_float,
                          parse_constant=_no_constant)
    except ValueError as e:
        raise DenyError("UNREADABLE", f"{what}: {e}") from e


class Call(NamedTuple):
    """A validated call. Execute `arguments` (canonical, policy applied),
    not the model's original text."""
    id: str
    name: str
    arguments: Dict[str, Any]
    arguments_json: str
    source: str
    repairs: List[str]

    @staticmethod
    def read(c) -> "Call":
        text = c.arguments_json
        args = loads_exact(text, "arguments_json") if text else {}
        return Call(c.id, c.name, args, text, c.source, list(c.repairs))


class Decision(NamedTuple):
    """A ValidateToolCall answer. `allowed` is True only for ALLOW."""
    decision: str  # ALLOW, REJECT, NEEDS_APPROVAL or STOP
    calls: List[Call]
    violations: List[Violation]
    repair_prompt: str
    approval_id: str
    audit_id: str
    attempt: int
    attempts_left: int
    stop_reason: str
    message: str

    @property
    def allowed(self) -> bool:
        return self.decision == "ALLOW"

    @staticmethod
    def read(r) -> "Decision":
        name = _enum_name(pb.Decision, "DECISION_", r.decision, "decision")
        calls = [Call.read(c) for c in r.calls]
        if name == "ALLOW":
            if not calls:
                raise DenyError("NO_CALLS", "ALLOW without a call")
            # An allowed call always carries its canonical arguments ("{}"
            # at least): a missing one must not read as "no arguments".
            for c in calls:
                if not c.arguments_json or not c.name:
                    raise DenyError("UNREADABLE", "ALLOW with a call missing "
                                    "its name or arguments_json")
        return Decision(name, calls, [Violation.read(v) for v in r.violations],
                        r.repair_prompt, r.approval_id, r.audit_id, r.attempt,
                        r.attempts_left, r.stop_reason, r.message)


class Finding(NamedTuple):
    code: str
    pointer: str
    excerpt: str


class OutputCheck(NamedTuple):
    """A ValidateToolOutput answer. `valid` is True only for VALID."""
    verdict: str  # VALID or INVALID
    stop_reason: str
    safe_mode: str
    violations: List[Violation]
    findings: List[Finding]
    read_only: bool
    audit_id: str

    @property
    def valid(self) -> bool:
        return self.verdict == "VALID"

    @staticmethod
    def read(r) -> "OutputCheck":
        name = _enum_name(pb.OutputVerdict, "OUTPUT_VERDICT_", r.verdict,
                          "verdict")
        return OutputCheck(name, r.stop_reason, r.safe_mode,
                           [Violation.read(v) for v in r.violations],
                           [Finding(f.code, f.pointer, f.excerpt)
                            for f in r.findings], r.read_only, r.audit_id)


class Verdict(NamedTuple):
    """An ExtractVerdict answer. `passed` is True only for PASS."""
    outcome: str  # PASS, FAIL, REFUSED or CONTRACT_STOP
    result: Optional[Dict[str, Any]]
    result_json: str
    stop_reason: str
    blocks_found: int
    violations: List[Violation]
    repairs: List[str]
    audit_id: str

    @property
    def passed(self) -> bool:
        return self.outcome == "PASS"

    @staticmethod
    def read(r) -> "Verdict":
        name = _enum_name(pb.Outcome, "OUTCOME_", r.outcome, "outcome")
        result = (loads_exact(r.result_json, "result_json") if r.result_json
                  else None)
        if name == "PASS" and result is None:
            raise DenyError("UNREADABLE", "PASS without a result_json")
        return Verdict(name, result, r.result_json, r.stop_reason,
                       r.blocks_found, [Violation.read(v) for v in r.violations],
                       list(r.repairs), r.audit_id)


def approval_state(r) -> str:
    """PENDING, APPROVED, DENIED, EXPIRED or USED; DenyError otherwise."""
    return _enum_name(pb.ApprovalState, "APPROVAL_STATE_", r.state,
                      "approval state")


_MANIFEST_FORMATS = {"auto": pb.MANIFEST_FORMAT_AUTO,
                     "toolgate": pb.MANIFEST_FORMAT_TOOLGATE,
                     "openai": pb.MANIFEST_FORMAT_OPENAI,
                     "anthropic": pb.MANIFEST_FORMAT_ANTHROPIC,
                     "mcp": pb.MANIFEST_FORMAT_MCP}
_REPAIR = {"strict": pb.REPAIR_POLICY_STRICT,
           "syntax_repair": pb.REPAIR_POLICY_SYNTAX_REPAIR}
_OUTPUT_MODE = {"fail_closed": pb.OUTPUT_MODE_FAIL_CLOSED,
                "degrade": pb.OUTPUT_MODE_DEGRADE}
_TEXT_FORMATS = {"hermes": pb.TEXT_FORMAT_HERMES,
                 "mistral": pb.TEXT_FORMAT_MISTRAL,
                 "llama3_json": pb.TEXT_FORMAT_LLAMA3_JSON,
                 "pythonic": pb.TEXT_FORMAT_PYTHONIC,
                 "granite": pb.TEXT_FORMAT_GRANITE,
                 "deepseek_v3": pb.TEXT_FORMAT_DEEPSEEK_V3}


def choice(table: Dict[str, int], value: str, what: str) -> int:
    try:
        return table[value.lower()]
    except KeyError:
        raise ValueError(f"{what} must be one of {sorted(table)}, "
                         f"not {value!r}") from None


def manifest_format(value: str) -> int:
    return choice(_MANIFEST_FORMATS, value, "format")


def repair_policy(value: str) -> int:
    return choice(_REPAIR, value, "repair")


def output_mode(value: str) -> int:
    return choice(_OUTPUT_MODE, value, "mode")


def text_format(value: Optional[str]) -> int:
    """The model family's call syntax in text output (docs/formats.md);
    None is UNSPECIFIED (today's reading)."""
    if value is None:
        return pb.TEXT_FORMAT_UNSPECIFIED
    return choice(_TEXT_FORMATS, value, "text_format")
