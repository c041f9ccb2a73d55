"""Differential: toolgate's ext_authz and the reference read a request the
same, or toolgate refuses it.

The reference is what an MCP server reads from the same bytes
(tests/mesh/reference/: JSON.parse and the MCP TypeScript SDK's JSON-RPC
schema after express.json()'s charset decoding, for bodies; WHATWG URL and
decodeURIComponent for a REST route's path). Its readings of
reference/cases.json are recorded in reference/readings.json (check.sh
re-derives them from the pinned SDK). Each case goes through the real
toolgate binary; for every request toolgate allows, the reference must
either refuse it (the server runs nothing) or read exactly the tool calls
toolgate decided (names, arguments, as the audit payload recorded them),
only messages toolgate lets through, and, for a path, the same tool with
no query string and no fragment.

Run: bazel test //tests/mesh:reference_diff_test
(TOOLGATE_ENVOY_API_DIR as for the other mesh tests).
"""
import base64
import json
import os
import sys
import unittest

import mesh_harness as h
from mesh_harness import pb

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = {"toolgate": "v1", "tools": [
    {"name": "echo", "side_effect": "read",
     "input_schema": {"type": "object"}},
    {"name": "transfer", "side_effect": "write",
     "input_schema": {"type": "object"}}]}
ROUTE = {"toolgate_snapshot": "reference"}
REST = dict(ROUTE, toolgate_tool_path="/tools/{name}")
PASS_THROUGH = {"initialize", "ping", "tools/list", "resources/list",
                "resources/read", "resources/templates/list", "prompts/list",
                "prompts/get", "completion/complete", "logging/setLevel"}

# Read otherwise by the reference: toolgate must refuse these.
MUST_DENY = {
    "duplicate name", "duplicate method", "duplicate argument",
    "duplicate id in batch", "duplicate id with a ping", "inexact integer",
    "inexact negative", "lone surrogate", "invalid utf-8",
    "utf-7 hides another call", "latin1", "utf-16le", "params another shape",
    "null id", "unsafe id", "huge id", "path /tools/echo?x=1",
    "path /tools/echo?", "path /tools/echo#f", "path /tools/echo?#",
    "path /tools/echo%3Fx=1", "path /tools/echo%23f",
    "path /tools/echo;a=b", "path /tools/echo%2Fx", "path /tools/echo%252F",
}
# Read the same: toolgate must allow these (the test is not vacuous).
MUST_ALLOW = {
    "single call", "batch of one", "batch calls",
    "batch with ping and notification", "escaped method",
    "whitespace around", "numbers", "nul and unicode",
    "proto key in arguments", "proto key in params",
    "meta in params", "tools/call notification", "utf-8 named", "bom",
    "path /tools/echo", "path /tools/ech%6F",
}


def load(name):
    with open(os.path.join(HERE, "reference", name)) as f:
        return json.load(f)


def as_read(value, exact=False):
    """A value as a JavaScript server holds it: numbers are doubles. With
    `exact` (toolgate's side), an integer no double holds stays apart."""
    if isinstance(value, dict):
        return {k: as_read(v, exact) for k, v in value.items()}
    if isinstance(value, list):
        return [as_read(v, exact) for v in value]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if exact and isinstance(value, int) and int(float(value)) != value:
        return ("inexact", value)
    return float(value)


def decided_calls(record):
    """The (name, arguments) toolgate decided, from the audit payload."""
    payload = record["payload"]
    assert payload.get("forward_as_sent") is True, payload
    output = json.loads(payload["native_json"])
    if "content" in output:
        return [(b["name"], as_read(b["input"], True))
                for b in output["content"]]
    return [(output["name"], as_read(output["arguments"], True))]


class ReferenceDiff(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.server = h.Server(flags=["--audit_payloads"])
        cls.server.rpc("CreateSnapshot", pb.CreateSnapshotRequest(
            manifest_json=json.dumps(MANIFEST), name="reference"),
            pb.CreateSnapshotResponse)
        cls.cases = load("cases.json")
        recorded = load("readings.json")
        cls.readings = {r["name"]: r["reading"]
                        for r in recorded["readings"]}

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def check(self, case):
        if "path" in case:
            return self.server.authz.Check(h.check_request(
                b'{"text":"hi"}', context=REST, path=case["path"]),
                timeout=10)
        headers = {}
        if "content_type" in case:
            headers["content-type"] = case["content_type"]
        return self.server.authz.Check(h.check_request(
            base64.b64decode(case["body_b64"]), headers, context=ROUTE),
            timeout=10)

    def records(self, audit_ids):
        wanted = set(audit_ids.split(",")) if audit_ids else set()
        return [r for r in self.server.audit_lines()
                if r.get("audit_id") in wanted]

    def assert_same_body(self, case, reading, added):
        if not reading["accepted"]:
            return  # The server refuses the request: nothing runs.
        decided = []
        for record in self.records(added.get("x-toolgate-audit-id")):
            self.assertEqual(record["decision"], "ALLOW", record)
            decided += decided_calls(record)
        read = []
        for m in reading["messages"]:
            self.assertNotEqual(m["kind"], "response", case["name"])
            method = m["method"]
            if method == "tools/call":
                read.append((m["params"]["name"],
                             as_read(m["params"]["arguments"])))
            else:
                self.assertTrue(method in PASS_THROUGH or
                                method.startswith("notifications/"),
                                (case["name"], method))
        self.assertEqual(read, decided, case["name"])

    def assert_same_path(self, case, reading, added):
        self.assertEqual(reading["search"], "", case["name"])
        self.assertEqual(reading["hash"], "", case["name"])
        self.assertEqual(reading["name"], added["x-toolgate-tool"],
                         case["name"])

    def test_allowed_requests_are_read_the_same(self):
        self.assertEqual(len(self.readings), len(self.cases))
        allowed = set()
        for case in self.cases:
            with self.subTest(case["name"]):
                reading = self.readings[case["name"]]
                resp = self.check(case)
                if resp.status.code != 0:
                    continue
                allowed.add(case["name"])
                added = h.header_values(resp.ok_response.headers)
                if "path" in case:
                    self.assert_same_path(case, reading, added)
                else:
                    self.assert_same_body(case, reading, added)
        self.assertFalse(MUST_DENY & allowed, "allowed what is read otherwise")
        self.assertEqual(MUST_ALLOW - allowed, set(), "refused plain requests")


if __name__ == "__main__":
    outcome = unittest.main(verbosity=2, exit=False).result
    if os.environ.get("XML_OUTPUT_FILE"):
        h.junit(outcome, os.environ["XML_OUTPUT_FILE"], "reference_diff")
    sys.exit(0 if outcome.wasSuccessful() else 1)
