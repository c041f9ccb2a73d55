"""toolgate: a fail-closed client for the toolgate sidecar.

    import toolgate
    gate = toolgate.Gate("127.0.0.1:50051")
    snapshot = gate.create_snapshot(tools)          # OpenAI/Anthropic/MCP/toolgate
    with gate.open_run(snapshot, model="gpt-4.1") as run:
        decision = run.validate(completion.choices[0].message)
        if decision.allowed:
            result = execute(decision.calls[0].name, decision.calls[0].arguments)

decision.allowed is True only for ALLOW; an RPC error, a deadline or an
answer this client cannot read raises DenyError. toolgate.aio has the same
API on asyncio. Every RPC carries the caller's W3C trace context: the
application's active OpenTelemetry context when the optional
`opentelemetry` package is there, or one set with toolgate.trace_context.
"""
from toolgate._types import (Call, Decision, DenyError, Finding, OutputCheck,
                             Verdict, Violation)
from toolgate._trace import trace_context
from toolgate.client import Gate, Run, gated

__all__ = ["Gate", "Run", "gated", "Decision", "Call", "Violation",
           "OutputCheck", "Finding", "Verdict", "DenyError", "trace_context"]
__version__ = "0.1.0"
