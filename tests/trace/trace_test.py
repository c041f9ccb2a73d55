"""Tracing end to end: a real OTLP/gRPC receiver (grpcio serving
opentelemetry.proto.collector.trace.v1.TraceService/Export, compiled at
test time from ../shared/otel-proto: the test FAILS when they are missing)
receives toolgate's spans for a run with an ALLOW, a REJECT with a repair,
an approval, an ExtractVerdict stop and a mesh Check.

Checked: the span tree (the caller's trace id and parent span carried
through gRPC metadata, and through Envoy's HTTP headers for Check; one
child span per ValidateToolCall stage that applied, named and ordered as
the stage list in core/engine/validate_tool_call.cc), the attributes, and that no planted
secret, argument value, run token, admin token or protected text appears
in any byte toolgate exported. Then a dead and a slow receiver: every
answer stays right, the dropped-span counter moves, memory stays bounded.
"""
import concurrent.futures
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request

import grpc

RUNFILES = os.environ.get("TEST_SRCDIR", "") + "/" + os.environ.get(
    "TEST_WORKSPACE", "toolgate")
sys.path.insert(0, os.path.join(RUNFILES, "tests/mesh"))
import mesh_harness as h  # noqa: E402
from mesh_harness import pb  # noqa: E402

STAGE_FILE = os.path.join(RUNFILES, "core/engine/validate_tool_call.cc")
SECRET_ARG = "PLANTED-ARGUMENT-VALUE-4f1c"
PROTECTED = "PLANTED PROTECTED TEXT that no span may ever carry 9b2e77"
MANIFEST = {"toolgate": "v1", "tools": [
    {"name": "get_customer", "side_effect": "read",
     "input_schema": {"type": "object", "properties": {
         "customer_id": {"type": "string", "pattern": "^CUS-"}},
         "required": ["customer_id"], "additionalProperties": False}},
    {"name": "delete_customer", "side_effect": "destructive",
     "policy": {"requires_approval": True},
     "input_schema": {"type": "object", "properties": {
         "customer_id": {"type": "string"}}, "required": ["customer_id"]}}]}
ROUTE = {"toolgate_snapshot": "traced"}


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
                       "(scripts/test.sh does)")


def load_otlp():
    """The OTLP trace service for Python, generated from the shared protos
    into a folder without __init__.py files (their SOURCE says how)."""
    src = find_otel_dir()
    out = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
    protos = [os.path.relpath(os.path.join(d, f), src)
              for d, _, files in os.walk(os.path.join(src, "opentelemetry"))
              for f in files if f.endswith(".proto")]
    subprocess.run(["/usr/bin/protoc", "-I" + src, "--python_out=" + out,
                    "--grpc_out=" + out,
                    "--plugin=protoc-gen-grpc=/usr/bin/grpc_python_plugin"]
                   + protos, check=True, cwd=src)
    sys.path.insert(0, out)
    from opentelemetry.proto.collector.trace.v1 import (  # noqa: E402
        trace_service_pb2 as svc, trace_service_pb2_grpc as svc_grpc)
    return svc, svc_grpc


SVC, SVC_GRPC = load_otlp()


class Receiver(SVC_GRPC.TraceServiceServicer):
    """Keeps every Export request, and its bytes; can sleep, refuse or
    answer what it is given."""

    def __init__(self):
        self.lock = threading.Lock()
        self.requests = []
        self.raw = b""
        self.sleep = 0
        self.refuse = False
        self.answer = None  # Else an empty ExportTraceServiceResponse.

    def Export(self, request, context):
        if self.sleep:
            time.sleep(self.sleep)
        if self.refuse:
            context.abort(grpc.StatusCode.UNAVAILABLE, "busy")
        with self.lock:
            self.requests.append(request)
            self.raw += request.SerializeToString()
        if self.answer is not None:
            return self.answer
        return SVC.ExportTraceServiceResponse()

    def spans(self):
        with self.lock:
            return [s for r in self.requests for rs in r.resource_spans
                    for ss in rs.scope_spans for s in ss.spans]


def start_receiver():
    receiver = Receiver()
    server = grpc.server(concurrent.futures.ThreadPoolExecutor(4))
    SVC_GRPC.add_TraceServiceServicer_to_server(receiver, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    return receiver, server, port


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def attrs(span):
    out = {}
    for kv in span.attributes:
        v = kv.value
        kind = v.WhichOneof("value")
        if kind == "array_value":
            out[kv.key] = [x.string_value for x in v.array_value.values]
        else:
            out[kv.key] = getattr(v, kind)
    return out


def stage_names():
    """The ValidateToolCall stage list, read from its one source."""
    with open(STAGE_FILE) as f:
        source = f.read()
    block = source[source.index("kValidateToolCall[] = {"):]
    block = block[:block.index("};")]
    return re.findall(r'\{"([^"]+)", pipeline::', block)


# The stages that leave no span in these cases: no stream, text read in a
# declared format or none (native), no argument rules, nothing needing
# approval, no call budgets; stateless (the mesh Check) also has no breaker,
# kill switch, run state to commit or repair loop to keep.
IN_A_RUN_NOT_APPLICABLE = (
    "assemble stream", "extract candidates", "policy (coerce)",
    "policy (tool)", "policy (approval)", "policy (call budgets)")
STATELESS_NOT_APPLICABLE = IN_A_RUN_NOT_APPLICABLE + (
    "breaker", "policy (run kill switch)", "commit run state", "repair loop")


def traceparent(trace_hex, span_hex):
    return "00-%s-%s-01" % (trace_hex, span_hex)


class TracingTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.receiver, cls.collector, port = start_receiver()
        cls.server = h.Server(flags=["--otlp_endpoint=127.0.0.1:%d" % port,
                                     "--trace_sample_ratio=1"])
        cls.snapshot = cls.server.rpc("CreateSnapshot", pb.CreateSnapshotRequest(
            manifest_json=json.dumps(MANIFEST), name="traced"),
            pb.CreateSnapshotResponse).snapshot_id
        cls.opened = cls.server.rpc("OpenRun", pb.OpenRunRequest(
            snapshot_id=cls.snapshot, model="gpt-traced",
            context={"tenant": "acme"}, protected_texts=[PROTECTED]),
            pb.OpenRunResponse)
        cls.drive()
        cls.wait_for_spans()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.collector.stop(0)

    @classmethod
    def validate(cls, call, parent, approval_id=""):
        message = {"role": "assistant", "tool_calls": [
            {"id": "c1", "type": "function", "function": {
                "name": call[0], "arguments": json.dumps(call[1])}}]}
        stub = cls.server.channel.unary_unary(
            "/toolgate.v1.ToolGate/ValidateToolCall",
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=pb.ValidateToolCallResponse.FromString)
        return stub(pb.ValidateToolCallRequest(
            run_id=cls.opened.run_id, run_token=cls.opened.run_token,
            native_json=json.dumps(message), approval_id=approval_id),
            timeout=10, metadata=(("traceparent", parent),
                                  ("tracestate", "caller=1")))

    @classmethod
    def drive(cls):
        cls.allow = cls.validate(
            ("get_customer", {"customer_id": "CUS-" + SECRET_ARG}),
            traceparent("a" * 32, "1" * 16))
        cls.reject = cls.validate(
            ("get_customer", {"customer_id": SECRET_ARG}),
            traceparent("b" * 32, "2" * 16))
        cls.asked = cls.validate(("delete_customer", {"customer_id": "CUS-9"}),
                                 traceparent("c" * 32, "3" * 16))
        cls.server.rpc("DecideApproval", pb.DecideApprovalRequest(
            approval_id=cls.asked.approval_id, approve=True, approver="ops"),
            pb.DecideApprovalResponse)
        cls.used = cls.validate(("delete_customer", {"customer_id": "CUS-9"}),
                                traceparent("d" * 32, "4" * 16),
                                approval_id=cls.asked.approval_id)
        cls.drive_text_formats()
        cls.verdict = cls.server.rpc("ExtractVerdict", pb.ExtractVerdictRequest(
            envelope="no block here " + SECRET_ARG), pb.ExtractVerdictResponse)
        body = h.tools_call("get_customer", {"customer_id": "CUS-" + SECRET_ARG})
        cls.check = cls.server.authz.Check(h.check_request(
            body, {"traceparent": traceparent("e" * 32, "5" * 16)},
            context=ROUTE), timeout=10)

    @classmethod
    def drive_text_formats(cls):
        """Pythonic text: in a run opened with the format (the request
        leaves it unset) and stateless with the request declaring it."""
        run = cls.server.rpc("OpenRun", pb.OpenRunRequest(
            snapshot_id=cls.snapshot, model="llama-traced",
            text_format=pb.TEXT_FORMAT_PYTHONIC), pb.OpenRunResponse)
        stub = cls.server.channel.unary_unary(
            "/toolgate.v1.ToolGate/ValidateToolCall",
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=pb.ValidateToolCallResponse.FromString)
        text = "[get_customer(customer_id='CUS-7')]"
        cls.pythonic_in_run = stub(pb.ValidateToolCallRequest(
            run_id=run.run_id, run_token=run.run_token, text=text),
            timeout=10, metadata=(("traceparent",
                                   traceparent("7" * 32, "6" * 16)),))
        cls.pythonic_declared = stub(pb.ValidateToolCallRequest(
            snapshot_id=cls.snapshot, text=text,
            text_format=pb.TEXT_FORMAT_PYTHONIC),
            timeout=10, metadata=(("traceparent",
                                   traceparent("8" * 32, "6" * 16)),))

    @classmethod
    def wait_for_spans(cls):
        deadline = time.time() + 20
        while time.time() < deadline:
            names = {s.name for s in cls.receiver.spans()}
            if "envoy.service.auth.v3.Authorization/Check" in names and \
                    "toolgate.v1.ToolGate/ExtractVerdict" in names:
                return
            time.sleep(0.2)

    def trace_of(self, trace_hex):
        spans = [s for s in self.receiver.spans()
                 if s.trace_id.hex() == trace_hex]
        roots = [s for s in spans if s.kind == s.SPAN_KIND_SERVER]
        self.assertEqual(len(roots), 1, [s.name for s in spans])
        children = sorted((s for s in spans if s is not roots[0]),
                          key=lambda s: s.start_time_unix_nano)
        return roots[0], children

    def assert_stage_children(self, root, children, not_applicable):
        """A span per stage that applied, in the stage list's order: the
        rest (`not_applicable`: no run, not a stream, no rule of their
        kind) leave none."""
        for name in not_applicable:
            self.assertIn(name, stage_names())
        self.assertEqual([c.name for c in children],
                         [n for n in stage_names() if n not in not_applicable])
        for c in children:
            self.assertEqual(c.parent_span_id, root.span_id, c.name)
            self.assertGreaterEqual(c.start_time_unix_nano,
                                    root.start_time_unix_nano)
            self.assertLessEqual(c.end_time_unix_nano, root.end_time_unix_nano)

    def test_allow_is_a_child_of_the_callers_span_with_a_span_per_stage(self):
        self.assertEqual(self.allow.decision, pb.DECISION_ALLOW)
        root, children = self.trace_of("a" * 32)
        self.assertEqual(root.name, "toolgate.v1.ToolGate/ValidateToolCall")
        self.assertEqual(root.parent_span_id.hex(), "1" * 16)
        self.assertEqual(root.trace_state, "caller=1")
        self.assert_stage_children(root, children, IN_A_RUN_NOT_APPLICABLE)
        a = attrs(root)
        self.assertEqual(a["rpc.system"], "grpc")
        self.assertEqual(a["rpc.service"], "toolgate.v1.ToolGate")
        self.assertEqual(a["rpc.method"], "ValidateToolCall")
        self.assertEqual(a["rpc.grpc.status_code"], 0)
        self.assertEqual(a["toolgate.decision"], "ALLOW")
        self.assertEqual(a["gen_ai.tool.name"], "get_customer")
        self.assertEqual(a["gen_ai.request.model"], "gpt-traced")
        self.assertEqual(a["toolgate.tenant"], "acme")
        self.assertEqual(a["toolgate.run_id"], self.opened.run_id)
        self.assertEqual(a["toolgate.snapshot_id"], self.snapshot)
        self.assertEqual(a["toolgate.extraction_path"], "native")

    def test_reject_carries_its_codes_and_the_repair_attempt(self):
        self.assertEqual(self.reject.decision, pb.DECISION_REJECT)
        root, children = self.trace_of("b" * 32)
        self.assert_stage_children(root, children, IN_A_RUN_NOT_APPLICABLE)
        a = attrs(root)
        self.assertEqual(a["toolgate.decision"], "REJECT")
        self.assertIn("invalid_arguments", a["toolgate.violation_codes"])
        self.assertEqual(a["toolgate.attempt"], 1)
        self.assertEqual(a["toolgate.attempts_left"],
                         self.reject.attempts_left)

    def test_approval_asked_decided_and_used(self):
        self.assertEqual(self.asked.decision, pb.DECISION_NEEDS_APPROVAL)
        asked, asked_stages = self.trace_of("c" * 32)
        # The approval stages applied here, so they have their spans.
        names = [c.name for c in asked_stages]
        self.assertIn("policy (tool)", names)
        self.assertIn("policy (approval)", names)
        self.assertEqual(attrs(asked)["toolgate.approval_id"],
                         self.asked.approval_id)
        self.assertEqual(attrs(asked)["toolgate.decision"], "NEEDS_APPROVAL")
        used, _ = self.trace_of("d" * 32)
        self.assertEqual(attrs(used)["toolgate.decision"], "ALLOW")
        decided = [s for s in self.receiver.spans()
                   if s.name == "toolgate.v1.ToolGate/DecideApproval"]
        self.assertEqual(len(decided), 1)
        self.assertEqual(attrs(decided[0])["toolgate.approval_state"],
                         "APPROVED")

    def test_declared_text_format_is_on_the_span(self):
        self.assertNotIn("toolgate.text_format", attrs(self.trace_of("a" * 32)[0]))
        cases = [("7" * 32, self.pythonic_in_run, "text",
                  IN_A_RUN_NOT_APPLICABLE),
                 ("8" * 32, self.pythonic_declared, "pythonic",
                  STATELESS_NOT_APPLICABLE)]
        for trace_hex, response, path, not_applicable in cases:
            self.assertEqual(response.decision, pb.DECISION_ALLOW, response)
            self.assertEqual(response.calls[0].source, "pythonic")
            root, children = self.trace_of(trace_hex)
            self.assert_stage_children(root, children, not_applicable)
            a = attrs(root)
            self.assertEqual(a["toolgate.text_format"], "pythonic")
            # The request's own declaration names the path, as
            # ToolCall.source does; a run's format alone leaves it "text".
            self.assertEqual(a["toolgate.extraction_path"], path)

    def test_verdict_stop(self):
        self.assertEqual(self.verdict.outcome, pb.OUTCOME_CONTRACT_STOP)
        spans = [s for s in self.receiver.spans()
                 if s.name == "toolgate.v1.ToolGate/ExtractVerdict"]
        self.assertEqual(len(spans), 1)
        a = attrs(spans[0])
        self.assertEqual(a["toolgate.outcome"], "CONTRACT_STOP")
        self.assertEqual(a["toolgate.stop_reason"], "no_result_block")

    def test_mesh_check_continues_the_agents_trace_from_envoys_headers(self):
        self.assertEqual(self.check.status.code, 0, self.check)
        root, children = self.trace_of("e" * 32)
        self.assertEqual(root.name, "envoy.service.auth.v3.Authorization/Check")
        self.assertEqual(root.parent_span_id.hex(), "5" * 16)
        self.assertEqual(attrs(root)["toolgate.decision"], "ALLOW")
        self.assert_stage_children(root, children, STATELESS_NOT_APPLICABLE)

    def test_no_exported_byte_carries_a_secret(self):
        raw = self.receiver.raw
        self.assertTrue(raw)
        for secret in (SECRET_ARG, PROTECTED, self.opened.run_token,
                       h.ADMIN_TOKEN, "CUS-9"):
            self.assertNotIn(secret.encode(), raw, secret)


class BadReceiverTest(unittest.TestCase):
    """A collector that is down, slow or refusing costs spans, never
    answers, latency or memory."""

    def drive(self, server, calls):
        snapshot = server.rpc("CreateSnapshot", pb.CreateSnapshotRequest(
            manifest_json=json.dumps(MANIFEST)),
            pb.CreateSnapshotResponse).snapshot_id
        message = json.dumps({"name": "get_customer",
                              "arguments": {"customer_id": "CUS-1"}})
        stub = server.channel.unary_unary(
            "/toolgate.v1.ToolGate/ValidateToolCall",
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=pb.ValidateToolCallResponse.FromString)
        for _ in range(calls):
            r = stub(pb.ValidateToolCallRequest(snapshot_id=snapshot,
                                                native_json=message),
                     timeout=10)
            self.assertEqual(r.decision, pb.DECISION_ALLOW)

    def metric(self, port, name):
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port) as r:
            for line in r.read().decode().splitlines():
                if line.startswith(name + " "):
                    return float(line.split()[1])
        return 0.0

    def rss_kb(self, pid):
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def test_dead_receiver(self):
        metrics = free_port()
        server = h.Server(flags=["--otlp_endpoint=127.0.0.1:%d" % free_port(),
                                 "--otlp_timeout_ms=100",
                                 "--metrics_listen=127.0.0.1:%d" % metrics])
        try:
            self.drive(server, 300)
            before = self.rss_kb(server.proc.pid)
            self.drive(server, 3000)
            time.sleep(1.5)
            self.assertGreater(
                self.metric(metrics, "toolgate_spans_dropped_total"), 3000)
            # ASan's quarantine keeps freed buffers resident: the plain
            # build checks the bound.
            if "ASAN_OPTIONS" not in os.environ:
                self.assertLess(self.rss_kb(server.proc.pid) - before,
                                30 * 1024)
        finally:
            server.stop()

    def test_slow_and_refusing_receivers(self):
        for setting in ("sleep", "refuse"):
            receiver, collector, port = start_receiver()
            if setting == "sleep":
                receiver.sleep = 0.5
            else:
                receiver.refuse = True
            metrics = free_port()
            server = h.Server(flags=["--otlp_endpoint=127.0.0.1:%d" % port,
                                     "--otlp_timeout_ms=100",
                                     "--metrics_listen=127.0.0.1:%d" % metrics])
            try:
                start = time.time()
                self.drive(server, 200)
                self.assertLess(time.time() - start, 30, setting)
                deadline = time.time() + 10
                while time.time() < deadline and self.metric(
                        metrics, "toolgate_spans_dropped_total") == 0:
                    time.sleep(0.2)
                self.assertGreater(
                    self.metric(metrics, "toolgate_spans_dropped_total"), 0,
                    setting)
            finally:
                server.stop()
                collector.stop(0)


if __name__ == "__main__":
    unittest.main()
