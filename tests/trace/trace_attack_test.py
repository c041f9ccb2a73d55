"""Tracing under attack: what a caller sends must not reach an exported
span unless toolgate resolved it (a run, a tool of the snapshot), and no
caller makes a span big. A real OTLP receiver (trace_test.py's) receives
the spans of a real toolgate.

Each case plants a marker in a place a caller controls (an unknown run id,
a model's made-up tool name after the run's breaker opened, a mesh run-id
header, a tracestate that is not one, a map key in an unparsable request)
and checks that no exported byte carries it; a traceparent sent twice
starts a trace of toolgate's own (W3C: duplicated traceparent is invalid);
a span's attribute keys are unique (OpenTelemetry: setting a key again
replaces its value).
"""
import json
import os
import socket
import sys
import time
import unittest
import urllib.request

import grpc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
RUNFILES = os.environ.get("TEST_SRCDIR", "") + "/" + os.environ.get(
    "TEST_WORKSPACE", "toolgate")
sys.path.insert(0, os.path.join(RUNFILES, "tests/trace"))
from trace_test import SVC, attrs, free_port, start_receiver  # noqa: E402
from trace_test import h, pb, traceparent  # noqa: E402

MANIFEST = {"toolgate": "v1", "tools": [
    {"name": "get_customer", "side_effect": "read",
     "input_schema": {"type": "object", "properties": {
         "customer_id": {"type": "string", "pattern": "^CUS-"}},
         "required": ["customer_id"], "additionalProperties": False}}]}
ROUTE = {"toolgate_snapshot": "attacked"}
# Caller text that must never be exported.
UNKNOWN_RUN = "PLANTED-UNKNOWN-RUN-ID-7d21"
MADE_UP_TOOL = "planted_made_up_tool_5e0a"
MESH_RUN = "PLANTED-MESH-RUN-HEADER-c3f9"
TRACESTATE = "Bearer PLANTED-TRACESTATE-TOKEN-88aa"
MAP_KEY = "PLANTED-CONTEXT-KEY-19bd"
HUGE = 1 << 20


def varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def field(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload


class AttackTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.receiver, cls.collector, port = start_receiver()
        cls.server = h.Server(flags=["--otlp_endpoint=127.0.0.1:%d" % port,
                                     "--trace_sample_ratio=1"])
        cls.snapshot = cls.server.rpc("CreateSnapshot", pb.CreateSnapshotRequest(
            manifest_json=json.dumps(MANIFEST), name="attacked"),
            pb.CreateSnapshotResponse).snapshot_id
        cls.validate_stub = cls.server.channel.unary_unary(
            "/toolgate.v1.ToolGate/ValidateToolCall",
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=pb.ValidateToolCallResponse.FromString)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.collector.stop(0)

    def validate(self, request, metadata=()):
        return self.validate_stub(request, timeout=10, metadata=metadata)

    def spans_of(self, trace_hex, count=1):
        deadline = time.time() + 20
        while time.time() < deadline:
            spans = [s for s in self.receiver.spans()
                     if s.trace_id.hex() == trace_hex]
            if len(spans) >= count:
                return spans
            time.sleep(0.1)
        self.fail("no span of trace %s arrived" % trace_hex)

    def server_span(self, trace_hex):
        roots = [s for s in self.spans_of(trace_hex)
                 if s.kind == s.SPAN_KIND_SERVER]
        self.assertEqual(len(roots), 1)
        return roots[0]

    def assert_not_exported(self, *markers):
        raw = self.receiver.raw
        self.assertTrue(raw)
        for marker in markers:
            # Not assertNotIn: its message would print every exported byte.
            self.assertFalse(marker.encode() in raw, marker + " was exported")

    def test_an_unknown_run_id_is_not_exported_in_the_error(self):
        with self.assertRaises(grpc.RpcError) as e:
            self.validate(pb.ValidateToolCallRequest(
                run_id=UNKNOWN_RUN, run_token="t", native_json="{}"),
                (("traceparent", traceparent("1" * 32, "1" * 16)),))
        self.assertEqual(e.exception.code(), grpc.StatusCode.NOT_FOUND)
        self.assertIn(UNKNOWN_RUN, e.exception.details())  # The caller's own.
        root = self.server_span("1" * 32)
        self.assertEqual(root.status.code, root.status.STATUS_CODE_ERROR)
        self.assertEqual(attrs(root)["rpc.grpc.status_code"], 5)
        self.assert_not_exported(UNKNOWN_RUN)

    def test_a_huge_run_id_makes_no_huge_span(self):
        with self.assertRaises(grpc.RpcError):
            self.validate(pb.ValidateToolCallRequest(
                run_id="x" * HUGE, run_token="t", native_json="{}"),
                (("traceparent", traceparent("2" * 32, "2" * 16)),))
        self.assertLess(self.server_span("2" * 32).ByteSize(), 4096)

    def test_an_unparsable_requests_map_key_is_not_exported(self):
        entry = field(1, MAP_KEY.encode()) + field(2, b"\xff\xfe")
        stub = self.server.channel.unary_unary(
            "/toolgate.v1.ToolGate/OpenRun",
            request_serializer=lambda b: b,
            response_deserializer=pb.OpenRunResponse.FromString)
        with self.assertRaises(grpc.RpcError) as e:
            stub(field(1, self.snapshot.encode()) + field(3, entry),
                 timeout=10,
                 metadata=(("traceparent", traceparent("3" * 32, "3" * 16)),))
        self.assertEqual(e.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn(MAP_KEY, e.exception.details())
        self.server_span("3" * 32)
        self.assert_not_exported(MAP_KEY)

    def test_a_made_up_tool_after_the_breaker_opened_is_not_a_tool_name(self):
        run = self.server.rpc("OpenRun", pb.OpenRunRequest(
            snapshot_id=self.snapshot, max_consecutive_rejects=1),
            pb.OpenRunResponse)
        bad = json.dumps({"name": "get_customer", "arguments": {}})
        made_up = json.dumps({"name": MADE_UP_TOOL, "arguments": {}})
        first = self.validate(pb.ValidateToolCallRequest(
            run_id=run.run_id, run_token=run.run_token, native_json=bad))
        self.assertEqual(first.decision, pb.DECISION_REJECT)
        stopped = self.validate(pb.ValidateToolCallRequest(
            run_id=run.run_id, run_token=run.run_token, native_json=made_up),
            (("traceparent", traceparent("4" * 32, "4" * 16)),))
        self.assertEqual(stopped.decision, pb.DECISION_STOP)
        a = attrs(self.server_span("4" * 32))
        self.assertEqual(a["toolgate.decision"], "STOP")
        self.assertNotIn("gen_ai.tool.name", a)
        self.assert_not_exported(MADE_UP_TOOL)

    def test_a_mesh_run_header_of_no_run_is_not_exported(self):
        body = h.tools_call("get_customer", {"customer_id": "CUS-1"})
        answer = self.server.authz.Check(h.check_request(
            body, {"traceparent": traceparent("5" * 32, "5" * 16),
                   "x-toolgate-run-id": MESH_RUN,
                   "x-toolgate-run-token": "nope"}), timeout=10)
        self.assertNotEqual(answer.status.code, 0)
        root = self.server_span("5" * 32)
        self.assertNotIn("toolgate.run_id", attrs(root))
        self.assert_not_exported(MESH_RUN)

    def test_a_mesh_check_in_a_run_sets_each_attribute_once(self):
        run = self.server.rpc("OpenRun", pb.OpenRunRequest(
            snapshot_id=self.snapshot), pb.OpenRunResponse)
        body = h.tools_call("get_customer", {"customer_id": "CUS-1"})
        answer = self.server.authz.Check(h.check_request(
            body, {"traceparent": traceparent("6" * 32, "6" * 16),
                   "x-toolgate-run-id": run.run_id,
                   "x-toolgate-run-token": run.run_token}), timeout=10)
        self.assertEqual(answer.status.code, 0, answer)
        root = self.server_span("6" * 32)
        keys = [kv.key for kv in root.attributes]
        self.assertEqual(len(keys), len(set(keys)), keys)
        self.assertEqual(attrs(root)["toolgate.run_id"], run.run_id)

    def test_a_tracestate_that_is_not_one_is_not_exported(self):
        self.validate(pb.ValidateToolCallRequest(
            snapshot_id=self.snapshot, native_json="{}"),
            (("traceparent", traceparent("7" * 32, "7" * 16)),
             ("tracestate", TRACESTATE)))
        self.assertEqual(self.server_span("7" * 32).trace_state, "")
        self.validate(pb.ValidateToolCallRequest(
            snapshot_id=self.snapshot, native_json="{}"),
            (("traceparent", traceparent("8" * 32, "8" * 16)),
             ("tracestate", "rojo=00f067aa0ba902b7"),
             ("tracestate", "congo=t61rcWkgMzE")))
        self.assertEqual(self.server_span("8" * 32).trace_state,
                         "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")
        self.assert_not_exported("PLANTED-TRACESTATE")

    def test_a_traceparent_sent_twice_is_refused(self):
        self.validate(pb.ValidateToolCallRequest(
            snapshot_id=self.snapshot, native_json="{}"),
            (("traceparent", traceparent("9" * 32, "9" * 16)),
             ("traceparent", traceparent("a" * 32, "a" * 16))))
        # Envoy's ext_proc passes each header line; ext_authz joins them.
        stream = h.ExtProcStream(self.server.ext_proc)
        stream.send(h.ep.ProcessingRequest(request_headers=h.ep.HttpHeaders(
            headers=h.base_pb2.HeaderMap(headers=[
                h.base_pb2.HeaderValue(key=":method", raw_value=b"POST"),
                h.base_pb2.HeaderValue(
                    key="traceparent",
                    raw_value=traceparent("b" * 32, "b" * 16).encode()),
                h.base_pb2.HeaderValue(
                    key="traceparent",
                    raw_value=traceparent("c" * 32, "c" * 16).encode())]))))
        stream.close()
        # The calls are done; give the exporter its interval, then check.
        deadline = time.time() + 5
        while time.time() < deadline:
            names = [s.name for s in self.receiver.spans()]
            if "envoy.service.ext_proc.v3.ExternalProcessor/Process" in names:
                break
            time.sleep(0.1)
        time.sleep(1)
        seen = {s.trace_id.hex() for s in self.receiver.spans()}
        for refused in ("9", "a", "b", "c"):
            self.assertNotIn(refused * 32, seen, refused)


class HostileCollectorTest(unittest.TestCase):
    """A collector that takes the connection and never speaks, or answers
    with a message bigger than toolgate reads: decisions keep answering,
    the spans are counted as dropped, and SIGTERM still ends the process
    within its grace period."""

    def metric(self, port, name):
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port) as r:
            for line in r.read().decode().splitlines():
                if line.startswith(name + " "):
                    return float(line.split()[1])
        return 0.0

    def serve_and_stop(self, endpoint_port):
        metrics = free_port()
        server = h.Server(flags=[
            "--otlp_endpoint=127.0.0.1:%d" % endpoint_port,
            "--otlp_timeout_ms=200", "--shutdown_grace_seconds=2",
            "--drain_notice_ms=100", "--metrics_listen=127.0.0.1:%d" % metrics])
        try:
            snapshot = server.rpc("CreateSnapshot", pb.CreateSnapshotRequest(
                manifest_json=json.dumps(MANIFEST)),
                pb.CreateSnapshotResponse).snapshot_id
            message = json.dumps({"name": "get_customer",
                                  "arguments": {"customer_id": "CUS-1"}})
            for _ in range(300):
                r = server.rpc("ValidateToolCall", pb.ValidateToolCallRequest(
                    snapshot_id=snapshot, native_json=message),
                    pb.ValidateToolCallResponse)
                self.assertEqual(r.decision, pb.DECISION_ALLOW)
            deadline = time.time() + 10
            while time.time() < deadline and self.metric(
                    metrics, "toolgate_spans_dropped_total") == 0:
                time.sleep(0.2)
            self.assertGreater(
                self.metric(metrics, "toolgate_spans_dropped_total"), 0)
        finally:
            start = time.time()
            server.stop()
            # Grace 2 s; the exit may not wait for the collector.
            self.assertLess(time.time() - start, 6)

    def test_a_collector_that_never_speaks(self):
        with socket.socket() as silent:
            silent.bind(("127.0.0.1", 0))
            silent.listen(64)  # Connections complete; nothing is read.
            self.serve_and_stop(silent.getsockname()[1])

    def test_a_collector_answering_a_huge_message(self):
        receiver, collector, port = start_receiver()
        huge = SVC.ExportTraceServiceResponse()
        huge.partial_success.rejected_spans = 0
        huge.partial_success.error_message = "x" * (8 << 20)
        receiver.answer = huge
        try:
            self.serve_and_stop(port)
        finally:
            collector.stop(0)


if __name__ == "__main__":
    unittest.main()
