"""W3C Trace Context on every RPC, so toolgate's spans join the caller's
trace: `traceparent` / `tracestate` gRPC metadata, from a context set with
trace_context() or else from the application's active OpenTelemetry
context.

OpenTelemetry is optional: `opentelemetry.propagate` is imported on the
first RPC and never again (an absent package costs one failed import per
process, not one per call). Tracing never changes a call's result: a
missing or broken OpenTelemetry (import error, a propagator that raises,
writes a value gRPC could not send) sends no trace headers, and the call
goes on as if it had none.
"""
import contextlib
import contextvars
import re
from typing import Iterator, Optional, Tuple

Headers = Tuple[Tuple[str, str], ...]

# The longest tracestate toolgate keeps (core/trace/trace_context.h).
MAX_TRACESTATE = 512

# Version 00 exactly; a later version (not ff) by its first four fields
# followed by "-" and more. Ids all-zero are invalid; hex is lowercase.
_TRACEPARENT = re.compile(
    r"(?!ff)[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}"
    r"-[0-9a-f]{2}(?:-[\x20-\x7e]*)?\Z")
# What gRPC sends as a plain metadata value: printable ASCII.
_PRINTABLE = re.compile(r"[\x20-\x7e]*\Z")

_hand_set: contextvars.ContextVar = contextvars.ContextVar(
    "toolgate_trace_context", default=None)

_NOT_LOOKED_UP = object()
_inject = _NOT_LOOKED_UP  # opentelemetry.propagate.inject, or None


def valid_traceparent(value) -> bool:
    return (type(value) is str and _TRACEPARENT.match(value) is not None
            and (value[:2] != "00" or len(value) == 55))


def valid_tracestate(value) -> bool:
    return (type(value) is str and len(value) <= MAX_TRACESTATE
            and _PRINTABLE.match(value) is not None)


def _pairs(traceparent: str, tracestate) -> Headers:
    if tracestate and valid_tracestate(tracestate):
        return (("traceparent", traceparent), ("tracestate", tracestate))
    return (("traceparent", traceparent),)


@contextlib.contextmanager
def trace_context(traceparent: Optional[str],
                  tracestate: Optional[str] = None) -> Iterator[None]:
    """Every RPC of this thread or asyncio task inside the `with` carries
    this W3C traceparent (and tracestate), whatever OpenTelemetry's active
    context is. traceparent None: no effect (OpenTelemetry's context, if
    any, is sent). A malformed value raises ValueError here, never in a
    call."""
    if traceparent is None:
        yield
        return
    if not valid_traceparent(traceparent):
        raise ValueError(
            "toolgate.trace_context: traceparent %r is not a W3C "
            "traceparent (00-<32 lowercase hex, not all 0>-<16 lowercase "
            "hex, not all 0>-<2 hex>)" % (traceparent,))
    if tracestate is not None and not valid_tracestate(tracestate):
        raise ValueError(
            "toolgate.trace_context: tracestate must be at most %d "
            "printable ASCII characters" % MAX_TRACESTATE)
    token = _hand_set.set(_pairs(traceparent, tracestate))
    try:
        yield
    finally:
        _hand_set.reset(token)


def _look_up():
    """opentelemetry.propagate.inject, or None: any failure to import it
    (absent, or raising at import, e.g. a bad OTEL_PROPAGATORS) is None."""
    try:
        from opentelemetry import propagate
        inject = propagate.inject
        return inject if callable(inject) else None
    except Exception:  # noqa: BLE001 (tracing never fails a call)
        return None


def _from_opentelemetry(inject) -> Headers:
    try:
        carrier = {}
        inject(carrier)
        parent = carrier.get("traceparent")
        if not valid_traceparent(parent):
            return ()
        return _pairs(parent, carrier.get("tracestate"))
    except Exception:  # noqa: BLE001 (tracing never fails a call)
        return ()


def headers() -> Headers:
    """The trace metadata for one RPC: () when there is no context."""
    hand_set = _hand_set.get()
    if hand_set is not None:
        return hand_set
    global _inject
    inject = _inject
    if inject is _NOT_LOOKED_UP:
        inject = _inject = _look_up()
    if inject is None:
        return ()
    return _from_opentelemetry(inject)


def _forget_lookup() -> None:
    """Tests only: look opentelemetry up again on the next RPC."""
    global _inject
    _inject = _NOT_LOOKED_UP
