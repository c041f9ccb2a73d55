"""End-to-end test from a non-C++ client: Debian's python3-grpcio.

Starts the real toolgate binary, then drives it the way a Python agent
runtime would: health, reflection, CreateSnapshot (OpenAI tools), OpenRun
and ValidateToolCall with OpenAI and Anthropic native calls. Run through
tests/python/e2e_test.sh (Bazel sh_test) with /usr/bin/python3.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import grpc

RUNFILES = os.environ.get("TEST_SRCDIR", "") + "/" + os.environ.get(
    "TEST_WORKSPACE", "toolgate")
sys.path.insert(0, os.path.join(RUNFILES, "proto"))
from toolgate.v1 import toolgate_pb2 as pb  # noqa: E402

SERVER = os.path.join(RUNFILES, "server/toolgate")
SERVICE = "/toolgate.v1.ToolGate/"

TOOLS = [{
    "type": "function",
    "function": {
        "name": "update_ticket",
        "description": "Change a ticket's priority.",
        "parameters": {
            "type": "object",
            "properties": {
                "ticket_id": {"type": "string", "pattern": "^TCK-[0-9]{6}$"},
                "priority": {"type": "string",
                             "enum": ["low", "normal", "high", "urgent"]},
                "notify": {"type": "boolean"},
            },
            "required": ["ticket_id", "priority"],
            "additionalProperties": False,
        },
        "strict": True,
    },
}]

GOOD_ARGS = {"ticket_id": "TCK-004242", "priority": "urgent", "notify": True}


def canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False)


def openai_message(arguments, name="update_ticket"):
    return json.dumps({"role": "assistant", "content": None, "tool_calls": [{
        "id": "call_1", "type": "function",
        "function": {"name": name, "arguments": arguments}}]})


def anthropic_message(tool_input, name="update_ticket"):
    return json.dumps({"role": "assistant", "content": [
        {"type": "text", "text": "Raising the priority."},
        {"type": "tool_use", "id": "toolu_1", "name": name,
         "input": tool_input}]})


class E2E(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        port_file = os.path.join(cls.tmp, "port")
        cls.proc = subprocess.Popen(
            [SERVER, "--listen=127.0.0.1:0", "--port_file=" + port_file])
        deadline = time.time() + 30
        port = ""
        while time.time() < deadline and not port:
            if os.path.exists(port_file):
                with open(port_file) as f:
                    port = f.read().strip()
            time.sleep(0.05)
        assert port, "server did not start"
        cls.channel = grpc.insecure_channel("127.0.0.1:" + port)

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        cls.proc.send_signal(signal.SIGTERM)
        assert cls.proc.wait(timeout=30) == 0, "SIGTERM must exit 0"

    def rpc(self, method, request, response_type):
        call = self.channel.unary_unary(
            SERVICE + method,
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=response_type.FromString)
        return call(request, timeout=10)

    def open_run(self):
        snap = self.rpc("CreateSnapshot", pb.CreateSnapshotRequest(
            manifest_json=json.dumps(TOOLS), name="py-e2e"),
            pb.CreateSnapshotResponse)
        self.assertRegex(snap.snapshot_id, r"^sha256:[0-9a-f]{64}$")
        self.assertEqual(list(snap.tool_names), ["update_ticket"])
        self.assertEqual(snap.format, pb.MANIFEST_FORMAT_OPENAI)
        return self.rpc("OpenRun", pb.OpenRunRequest(
            snapshot_id=snap.snapshot_id, model="gpt-test"),
            pb.OpenRunResponse)

    def validate(self, run, native):
        return self.rpc("ValidateToolCall", pb.ValidateToolCallRequest(
            run_id=run.run_id, run_token=run.run_token, native_json=native),
            pb.ValidateToolCallResponse)

    def test_health_serving(self):
        check = self.channel.unary_unary(
            "/grpc.health.v1.Health/Check",
            request_serializer=lambda b: b, response_deserializer=lambda b: b)
        # HealthCheckResponse{status: SERVING} is field 1 = varint 1.
        self.assertEqual(check(b"", timeout=10), b"\x08\x01")

    def test_reflection_lists_the_service(self):
        info = self.channel.stream_stream(
            "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
            request_serializer=lambda b: b, response_deserializer=lambda b: b)
        # ServerReflectionRequest{list_services: ""} is field 7, empty string.
        replies = list(info(iter([b"\x3a\x00"]), timeout=10))
        self.assertTrue(any(b"toolgate.v1.ToolGate" in r for r in replies))

    def test_allow_openai_and_anthropic_with_exact_arguments(self):
        run = self.open_run()
        for native in (openai_message(json.dumps(GOOD_ARGS)),
                       anthropic_message(GOOD_ARGS)):
            resp = self.validate(run, native)
            self.assertEqual(resp.decision, pb.DECISION_ALLOW, resp)
            self.assertEqual(len(resp.calls), 1)
            self.assertEqual(resp.calls[0].name, "update_ticket")
            self.assertEqual(json.loads(resp.calls[0].arguments_json), GOOD_ARGS)
            self.assertEqual(resp.calls[0].arguments_json, canonical(GOOD_ARGS))
            self.assertEqual(len(resp.violations), 0)

    def test_rejects_with_named_violations(self):
        run = self.open_run()
        dup = '{"ticket_id":"TCK-004242","priority":"low","priority":"urgent"}'
        cases = [
            ("unknown tool",
             openai_message(json.dumps(GOOD_ARGS), name="delete_ticket"),
             "unknown_tool", ""),
            ("missing required",
             openai_message(json.dumps({"ticket_id": "TCK-004242"})),
             "invalid_arguments", ""),
            ("wrong type",
             anthropic_message(dict(GOOD_ARGS, notify="true")),
             "invalid_arguments", "/notify"),
            ("enum miss",
             openai_message(json.dumps(dict(GOOD_ARGS, priority="critial"))),
             "invalid_arguments", "/priority"),
            ("duplicate keys", openai_message(dup), "duplicate_key", "/priority"),
            ("oversize",
             openai_message(json.dumps(dict(GOOD_ARGS, ticket_id="T" * 200001))),
             "input_too_large", ""),
            ("empty arguments", openai_message(""), "empty_arguments", ""),
        ]
        for label, native, code, pointer in cases:
            with self.subTest(label):
                resp = self.validate(run, native)
                self.assertEqual(resp.decision, pb.DECISION_REJECT, label)
                self.assertGreater(len(resp.violations), 0)
                self.assertEqual(resp.violations[0].code, code, resp.violations)
                self.assertEqual(resp.violations[0].pointer, pointer)
                self.assertTrue(resp.repair_prompt)
                # Reset the loop so the breaker does not end the table early.
                self.rpc("ResetRun", pb.ResetRunRequest(
                    run_id=run.run_id, run_token=run.run_token),
                    pb.ResetRunResponse)

    def anthropic_stream(self, args_text, stop=True):
        events = [
            {"type": "message_start", "message": {"content": []}},
            {"type": "content_block_start", "index": 0, "content_block": {
                "type": "tool_use", "id": "toolu_1", "name": "update_ticket",
                "input": {}}},
        ] + [{"type": "content_block_delta", "index": 0, "delta": {
            "type": "input_json_delta", "partial_json": args_text[i:i + 7]}}
            for i in range(0, len(args_text), 7)] + [
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"}},
            {"type": "message_stop"}]
        return [json.dumps(e) for e in (events if stop else events[:-1])]

    def test_stream_forwarded_as_it_arrives(self):
        run = self.open_run()
        call = self.channel.stream_unary(
            SERVICE + "ValidateToolCallStream",
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=pb.ValidateToolCallResponse.FromString)

        def messages(events):
            yield pb.ToolCallStreamRequest(
                run_id=run.run_id, run_token=run.run_token,
                stream_format=pb.STREAM_FORMAT_ANTHROPIC_MESSAGES)
            for e in events:  # One event per message, as an agent relays.
                yield pb.ToolCallStreamRequest(events=[e])

        events = self.anthropic_stream(json.dumps(GOOD_ARGS))
        resp = call(messages(events), timeout=10)
        self.assertEqual(resp.decision, pb.DECISION_ALLOW, resp)
        self.assertEqual(resp.calls[0].arguments_json, canonical(GOOD_ARGS))
        self.assertEqual(resp.calls[0].source, "stream_anthropic_messages")
        # The same events in the unary form decide the same.
        unary = self.rpc("ValidateToolCall", pb.ValidateToolCallRequest(
            run_id=run.run_id, run_token=run.run_token,
            stream_events=pb.StreamEvents(
                format=pb.STREAM_FORMAT_ANTHROPIC_MESSAGES, events=events)),
            pb.ValidateToolCallResponse)
        self.assertEqual(unary.decision, pb.DECISION_ALLOW, unary)
        # Cut before message_stop: never a call to run.
        cut = call(messages(self.anthropic_stream(json.dumps(GOOD_ARGS),
                                                  stop=False)), timeout=10)
        self.assertEqual(cut.decision, pb.DECISION_REJECT)
        self.assertEqual(cut.violations[0].code, "truncated_stream")

    def test_wrong_token_is_refused(self):
        run = self.open_run()
        with self.assertRaises(grpc.RpcError) as err:
            self.rpc("ValidateToolCall", pb.ValidateToolCallRequest(
                run_id=run.run_id, run_token="0" * 64,
                native_json=openai_message(json.dumps(GOOD_ARGS))),
                pb.ValidateToolCallResponse)
        self.assertEqual(err.exception.code(), grpc.StatusCode.PERMISSION_DENIED)


def write_junit(result, path):
    """Reports case counts to Bazel (XML_OUTPUT_FILE) for the CI summary."""
    failed = len(result.failures) + len(result.errors)
    with open(path, "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>'
                f'<testsuite name="e2e" tests="{result.testsRun}" '
                f'failures="{failed}" errors="0"></testsuite></testsuites>\n')


if __name__ == "__main__":
    outcome = unittest.main(verbosity=2, exit=False).result
    if os.environ.get("XML_OUTPUT_FILE"):
        write_junit(outcome, os.environ["XML_OUTPUT_FILE"])
    sys.exit(0 if outcome.wasSuccessful() else 1)
