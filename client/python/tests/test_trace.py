"""The client carries the caller's W3C trace context to toolgate, checked on
what toolgate exports: a real OTLP/gRPC receiver (grpcio serving
opentelemetry.proto.collector.trace.v1.TraceService/Export, compiled at
test time from shared/otel-proto: TOOLGATE_OTEL_PROTO_DIR, set by
python_client_test.sh; the test FAILS when they are missing) receives the
spans of a real toolgate started with --otlp_endpoint.

Debian ships no OpenTelemetry for Python (only golang-opentelemetry-otel-
dev), so the inject path runs against a test double of
`opentelemetry.propagate` written at test time: the real module's
`inject(carrier, context=None, setter=default_setter)`, whose default
setter writes carrier[key] = value and whose context defaults to the
current one (kept in a contextvar, as OpenTelemetry keeps it). It lives
in a folder without __init__.py, a portion of the `opentelemetry`
namespace package like the real opentelemetry-api.
"""
import asyncio
import concurrent.futures
import importlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

import grpc
import pytest

import toolgate
import toolgate.aio
from toolgate import _trace
from conftest import ADMIN_TOKEN, start_server

GOOD = {"ticket_id": "TCK-000042", "priority": "high"}
VALIDATE = "toolgate.v1.ToolGate/ValidateToolCall"


def tool_call(name="update_ticket", arguments=GOOD):
    return {"role": "assistant", "content": None, "tool_calls": [{
        "id": "call_1", "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)}}]}


def traceparent(trace_hex, span_hex, flags="01"):
    return "00-%s-%s-%s" % (trace_hex, span_hex, flags)


def find_otel_dir():
    env = os.environ.get("TOOLGATE_OTEL_PROTO_DIR")
    if env:
        return env
    here = os.path.realpath(os.path.dirname(__file__))
    while here != "/":
        candidate = os.path.join(here, "shared", "otel-proto")
        if os.path.isdir(os.path.join(candidate, "opentelemetry")):
            return candidate
        here = os.path.dirname(here)
    raise RuntimeError("OpenTelemetry's protos not found: set "
                       "TOOLGATE_OTEL_PROTO_DIR to shared/otel-proto "
                       "(python_client_test.sh does)")


def load_otlp(tmp):
    """The OTLP trace service for Python, generated from the shared protos
    into a folder without __init__.py files."""
    src = find_otel_dir()
    protos = [os.path.relpath(os.path.join(d, f), src)
              for d, _, files in os.walk(os.path.join(src, "opentelemetry"))
              for f in files if f.endswith(".proto")]
    assert protos, "no .proto under " + src
    subprocess.run(["/usr/bin/protoc", "-I" + src, "--python_out=" + tmp,
                    "--grpc_out=" + tmp,
                    "--plugin=protoc-gen-grpc=/usr/bin/grpc_python_plugin"]
                   + protos, check=True, cwd=src)
    sys.path.append(tmp)
    importlib.invalidate_caches()
    from opentelemetry.proto.collector.trace.v1 import (
        trace_service_pb2 as svc, trace_service_pb2_grpc as svc_grpc)
    return svc, svc_grpc


class Collector:
    """A real OTLP receiver keeping every span it was sent."""

    def __init__(self, svc, svc_grpc):
        collector = self

        class Servicer(svc_grpc.TraceServiceServicer):
            def Export(self, request, context):
                with collector.lock:
                    collector.spans.extend(
                        s for rs in request.resource_spans
                        for ss in rs.scope_spans for s in ss.spans)
                return svc.ExportTraceServiceResponse()

        self.lock = threading.Lock()
        self.spans = []
        self.server = grpc.server(concurrent.futures.ThreadPoolExecutor(2))
        svc_grpc.add_TraceServiceServicer_to_server(Servicer(), self.server)
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        self.server.start()

    def server_spans(self, predicate, count, what):
        """The server spans matching predicate, once there are at least
        count of them (polled up to 20 s)."""
        deadline = time.time() + 20
        while True:
            with self.lock:
                found = [s for s in self.spans
                         if s.kind == s.SPAN_KIND_SERVER and predicate(s)]
            if len(found) >= count or time.time() > deadline:
                break
            time.sleep(0.05)
        assert len(found) == count, (what, [s.name for s in found])
        return found

    def of_trace(self, trace_hex, count=1, name=VALIDATE):
        return self.server_spans(
            lambda s: s.trace_id.hex() == trace_hex and
            (name is None or s.name == name), count, "trace " + trace_hex)

    def of_run(self, run_id, count=1):
        """ValidateToolCall spans of a run (toolgate.run_id)."""
        return self.server_spans(
            lambda s: s.name == VALIDATE and any(
                kv.key == "toolgate.run_id" and
                kv.value.string_value == run_id for kv in s.attributes),
            count, "run " + run_id)


@pytest.fixture(scope="module")
def traced(manifest):
    """A toolgate exporting every span (sample ratio 1) to a Collector."""
    tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
    os.makedirs(os.path.join(tmp, "otlp"))
    collector = Collector(*load_otlp(os.path.join(tmp, "otlp")))
    token_file = os.path.join(tmp, "admin_token")
    with open(token_file, "w") as f:
        f.write(ADMIN_TOKEN + "\n")
    proc, target = start_server(
        tmp, "--otlp_endpoint=127.0.0.1:%d" % collector.port,
        "--trace_sample_ratio=1", "--admin_token_file=" + token_file)
    with toolgate.Gate(target, admin_token=ADMIN_TOKEN) as gate:
        snapshot = gate.create_snapshot(manifest, name="traced")
    yield collector, target, snapshot
    proc.terminate()
    proc.wait(10)
    collector.server.stop(0)


# The test double of opentelemetry.propagate (see the module docstring).
DOUBLE = '''
import contextvars

current_span = contextvars.ContextVar("current_span", default=None)


class DefaultSetter:
    def set(self, carrier, key, value):
        carrier[key] = value


default_setter = DefaultSetter()


def inject(carrier, context=None, setter=default_setter):
    span = current_span.get() if context is None else context
    if span is None:  # No valid span in the context: nothing written.
        return
    trace_hex, span_hex, state = span
    setter.set(carrier, "traceparent", "00-%s-%s-01" % (trace_hex, span_hex))
    if state:
        setter.set(carrier, "tracestate", state)
'''

# Broken installs and propagators: each must leave every call's result as
# it is, and send no trace context.
BROKEN = {
    # What the real module does for a bad OTEL_PROPAGATORS.
    "raises_at_import": 'raise ValueError("Propagator nope not found")\n',
    "inject_raises": 'def inject(carrier, context=None, setter=None):\n'
                     '    raise RuntimeError("propagator failed")\n',
    "inject_not_callable": 'inject = "not a function"\n',
    "writes_what_grpc_cannot_send": (
        'def inject(carrier, context=None, setter=None):\n'
        '    carrier["traceparent"] = "00-\\u00e9%s-%s-01" % ("a" * 31, "b" * 16)\n'
        '    carrier["tracestate"] = "k=v\\nx"\n'),
    "writes_a_malformed_traceparent": (
        'def inject(carrier, context=None, setter=None):\n'
        '    carrier["traceparent"] = "00-%s-%s-01" % ("A" * 32, "b" * 16)\n'),
    "writes_non_strings": (
        'def inject(carrier, context=None, setter=None):\n'
        '    carrier["traceparent"] = b"00-" + b"a" * 32\n'),
}


def drop_propagate():
    """Forgets any imported opentelemetry.propagate: the module and the
    parent package's attribute (which `from opentelemetry import
    propagate` would find first)."""
    sys.modules.pop("opentelemetry.propagate", None)
    package = sys.modules.get("opentelemetry")
    if package is not None and hasattr(package, "propagate"):
        delattr(package, "propagate")
    importlib.invalidate_caches()
    _trace._forget_lookup()


@pytest.fixture()
def opentelemetry_module():
    """Installs an `opentelemetry.propagate` from source (a namespace
    portion on sys.path) and makes the client look it up again; removes it
    afterwards."""
    installed = []

    def install(source):
        folder = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        os.makedirs(os.path.join(folder, "opentelemetry"))
        with open(os.path.join(folder, "opentelemetry", "propagate.py"),
                  "w") as f:
            f.write(source)
        sys.path.insert(0, folder)
        installed.append(folder)
        drop_propagate()

    yield install
    for folder in installed:
        sys.path.remove(folder)
    drop_propagate()


def test_hand_set_context_reaches_every_rpc(traced, manifest):
    collector, target, snapshot = traced
    trace_hex, span_hex = "1a" * 16, "2b" * 8
    with toolgate.trace_context(traceparent(trace_hex, span_hex),
                                "vendor=agent-7"):
        with toolgate.Gate(target, admin_token=ADMIN_TOKEN) as gate:
            assert gate.create_snapshot(manifest) == snapshot  # admin
            with gate.open_run(snapshot, model="m") as run:
                d = run.validate(tool_call())
                streamed = run.validate_stream([
                    {"choices": [{"index": 0, "delta": {"tool_calls": [{
                        "index": 0, "id": "c1", "type": "function",
                        "function": {"name": "update_ticket",
                                     "arguments": json.dumps(GOOD)}}]}}]},
                    {"choices": [{"index": 0, "delta": {},
                                  "finish_reason": "tool_calls"}]},
                    "[DONE]"], format="openai_chat")
                out = run.check_output("get_weather", {"temp_c": 3})
    assert (d.decision, streamed.decision, out.valid) == ("ALLOW", "ALLOW",
                                                          True)
    spans = collector.of_trace(trace_hex, count=6, name=None)
    methods = {s.name.rsplit("/", 1)[1] for s in spans}
    assert methods == {"CreateSnapshot", "OpenRun", "ValidateToolCall",
                       "ValidateToolCallStream", "ValidateToolOutput",
                       "CloseRun"}, methods
    for s in spans:
        assert s.parent_span_id.hex() == span_hex, s.name
        assert s.trace_state == "vendor=agent-7", s.name


def test_hand_set_context_nests_and_ends_with_its_block(traced):
    collector, target, snapshot = traced
    outer, inner = ("3c" * 16, "4d" * 8), ("5e" * 16, "6f" * 8)
    with toolgate.Gate(target) as gate:
        run = gate.stateless(snapshot)
        with toolgate.trace_context(traceparent(*outer)):
            with toolgate.trace_context(traceparent(*inner)):
                run.validate(tool_call())
            run.validate(tool_call())
        with gate.open_run(snapshot) as after:
            after.validate(tool_call())
    for trace_hex, span_hex in (outer, inner):
        (span,) = collector.of_trace(trace_hex)
        assert span.parent_span_id.hex() == span_hex
        assert span.trace_state == ""
    (untraced,) = collector.of_run(after.run_id)
    assert untraced.parent_span_id == b""
    assert untraced.trace_id.hex() not in (outer[0], inner[0])


def test_aio_tasks_each_carry_their_own_context(traced):
    collector, target, snapshot = traced
    contexts = [("7a" * 16, "01" * 8), ("7b" * 16, "02" * 8),
                ("7c" * 16, "03" * 8)]

    async def one(gate, trace_hex, span_hex):
        with toolgate.trace_context(traceparent(trace_hex, span_hex)):
            run = await gate.stateless(snapshot)
            for _ in range(3):
                await asyncio.sleep(0)
                d = await run.validate(tool_call())
                assert d.allowed

    async def go():
        async with toolgate.aio.Gate(target) as gate:
            await asyncio.gather(*(one(gate, *c) for c in contexts))

    asyncio.run(go())
    for trace_hex, span_hex in contexts:
        spans = collector.of_trace(trace_hex, count=3)
        assert {s.parent_span_id.hex() for s in spans} == {span_hex}


def test_opentelemetry_active_span_is_the_parent(traced,
                                                 opentelemetry_module):
    collector, target, snapshot = traced
    opentelemetry_module(DOUBLE)
    from opentelemetry import propagate
    trace_hex, span_hex = "8e" * 16, "9f" * 8
    with toolgate.Gate(target) as gate:
        with gate.open_run(snapshot, model="m") as run:
            token = propagate.current_span.set(
                (trace_hex, span_hex, "otel=1"))
            try:
                d = run.validate(tool_call())
            finally:
                propagate.current_span.reset(token)
            idle = run.validate(tool_call())  # No active span: no parent.
    assert d.allowed and idle.allowed
    (span,) = collector.of_trace(trace_hex)
    assert span.parent_span_id.hex() == span_hex
    assert span.trace_state == "otel=1"
    spans = collector.of_run(run.run_id, count=2)
    assert sorted((s.trace_id.hex() == trace_hex, s.parent_span_id.hex())
                  for s in spans) == [(False, ""), (True, span_hex)]


def test_opentelemetry_in_aio(traced, opentelemetry_module):
    collector, target, snapshot = traced
    opentelemetry_module(DOUBLE)
    from opentelemetry import propagate
    trace_hex, span_hex = "ab" * 16, "cd" * 8

    async def go():
        async with toolgate.aio.Gate(target) as gate:
            run = await gate.stateless(snapshot)
            propagate.current_span.set((trace_hex, span_hex, ""))
            return await run.validate(tool_call())

    assert asyncio.run(go()).allowed
    (span,) = collector.of_trace(trace_hex)
    assert span.parent_span_id.hex() == span_hex


def test_hand_set_context_wins_over_opentelemetry(traced,
                                                  opentelemetry_module):
    collector, target, snapshot = traced
    opentelemetry_module(DOUBLE)
    from opentelemetry import propagate
    token = propagate.current_span.set(("e0" * 16, "e1" * 8, ""))
    try:
        with toolgate.Gate(target) as gate, toolgate.trace_context(
                traceparent("f0" * 16, "f1" * 8)):
            assert gate.stateless(snapshot).validate(tool_call()).allowed
    finally:
        propagate.current_span.reset(token)
    (span,) = collector.of_trace("f0" * 16)
    assert span.parent_span_id.hex() == "f1" * 8


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_opentelemetry_changes_no_result(traced, opentelemetry_module,
                                                name):
    collector, target, snapshot = traced
    opentelemetry_module(BROKEN[name])
    with toolgate.Gate(target) as gate:
        with gate.open_run(snapshot) as run:
            good = run.validate(tool_call())
            bad = run.validate(tool_call(arguments={**GOOD,
                                                    "priority": "nope"}))
        async def aio():
            async with toolgate.aio.Gate(target) as agate:
                arun = await agate.stateless(snapshot)
                return await arun.validate(tool_call())
        assert asyncio.run(aio()).allowed
    assert (good.decision, bad.decision) == ("ALLOW", "REJECT")
    spans = collector.of_run(run.run_id, count=2)
    assert [s.parent_span_id for s in spans] == [b"", b""], name


class CountingBlocker:
    """A meta path finder that counts lookups of OpenTelemetry's propagate
    module and makes them fail, as on a system without the package."""

    def __init__(self):
        self.lookups = 0

    def find_spec(self, name, path=None, target=None):
        if name in ("opentelemetry", "opentelemetry.propagate"):
            self.lookups += 1
            if name == "opentelemetry.propagate":
                raise ModuleNotFoundError("No module named " + name)
        return None


def test_absent_opentelemetry_is_looked_up_once(traced):
    _, target, snapshot = traced
    blocker = CountingBlocker()
    sys.meta_path.insert(0, blocker)
    drop_propagate()
    try:
        with toolgate.Gate(target) as gate:
            run = gate.stateless(snapshot)
            assert run.validate(tool_call()).allowed
            first = blocker.lookups
            for _ in range(20):
                assert run.validate(tool_call()).allowed
    finally:
        sys.meta_path.remove(blocker)
        drop_propagate()
    assert first > 0
    assert blocker.lookups == first


@pytest.mark.parametrize("parent, state", [
    ("garbage", None),
    ("", None),
    (traceparent("A" * 32, "b" * 16), None),  # uppercase hex
    (traceparent("0" * 32, "b" * 16), None),  # all-zero trace id
    (traceparent("a" * 32, "0" * 16), None),  # all-zero parent id
    ("ff-%s-%s-01" % ("a" * 32, "b" * 16), None),  # version ff
    (traceparent("a" * 32, "b" * 16) + "-x", None),  # 00 with a suffix
    (traceparent("a" * 31, "b" * 16), None),  # short
    (traceparent("a" * 32, "b" * 16, "1"), None),
    (" " + traceparent("a" * 32, "b" * 16), None),
    (traceparent("a" * 32, "b" * 16), "k=v\nx"),  # not sendable
    (traceparent("a" * 32, "b" * 16), "k=\u00e9"),
    (traceparent("a" * 32, "b" * 16), "k=" + "v" * 600),  # over 512
    (b"00-" + b"a" * 32 + b"-" + b"b" * 16 + b"-01", None),
])
def test_malformed_hand_set_context_is_a_clear_error(parent, state):
    with pytest.raises(ValueError, match="toolgate.trace_context"):
        with toolgate.trace_context(parent, state):
            pytest.fail("entered the block")
    assert _trace.headers() == ()


@pytest.mark.parametrize("parent", [
    traceparent("a" * 32, "b" * 16),
    traceparent("a" * 32, "b" * 16, "00"),  # not sampled: still sent
    "01-%s-%s-01-later-fields" % ("a" * 32, "b" * 16),  # a later version
])
def test_wellformed_hand_set_context_is_sent_as_given(parent):
    with toolgate.trace_context(parent, "k=v"):
        assert _trace.headers() == (("traceparent", parent),
                                    ("tracestate", "k=v"))
    with toolgate.trace_context(parent):
        assert _trace.headers() == (("traceparent", parent),)
    assert _trace.headers() == ()


def test_none_sets_no_context():
    with toolgate.trace_context(None):
        assert _trace.headers() == ()
