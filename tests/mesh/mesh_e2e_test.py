"""End to end over gRPC: Envoy's ext_authz Check and ext_proc Process
against the real toolgate binary, every message built and parsed with
Envoy's own protos (../shared/envoy-api; envoy_protos.py).

Run: bazel test //tests/mesh:mesh_e2e_test (scripts/test.sh passes
TOOLGATE_ENVOY_API_DIR; without the protos the test fails).
"""
import json
import os
import sys
import unittest

import mesh_harness as h
from mesh_harness import authz, ep, pb

READ_TOOL = {
    "name": "get_customer",
    "description": "Read a customer record.",
    "inputSchema": {
        "type": "object",
        "properties": {"customer_id": {"type": "string",
                                       "pattern": "^CUS-[0-9]{6}$"}},
        "required": ["customer_id"], "additionalProperties": False},
    "outputSchema": {
        "type": "object",
        "properties": {"customer_id": {"type": "string"},
                       "tier": {"type": "string",
                                "enum": ["free", "pro", "enterprise"]}},
        "required": ["customer_id", "tier"]},
    "annotations": {"readOnlyHint": True},
}
WRITE_TOOL = {
    "name": "update_customer_email",
    "description": "Change a customer's contact email.",
    "inputSchema": {
        "type": "object",
        "properties": {"customer_id": {"type": "string",
                                       "pattern": "^CUS-[0-9]{6}$"},
                       "email": {"type": "string", "maxLength": 254}},
        "required": ["customer_id", "email"], "additionalProperties": False},
    "annotations": {"readOnlyHint": False, "destructiveHint": False},
}
DELETE_TOOL = {
    "name": "delete_customer",
    "description": "Delete a customer.",
    "inputSchema": {"type": "object",
                    "properties": {"customer_id": {"type": "string"}},
                    "required": ["customer_id"]},
    "annotations": {"destructiveHint": True},
}
# toolgate's own format: side effects, output format and approvals.
MANIFEST = {"toolgate": "v1", "tools": [
    {"name": READ_TOOL["name"], "side_effect": "read",
     "input_schema": READ_TOOL["inputSchema"],
     "output_schema": READ_TOOL["outputSchema"], "output_format": "mcp"},
    # The same tool behind a REST server: plain JSON answers.
    {"name": "lookup_customer", "side_effect": "read",
     "input_schema": READ_TOOL["inputSchema"],
     "output_schema": READ_TOOL["outputSchema"], "output_format": "json"},
    {"name": WRITE_TOOL["name"], "side_effect": "write",
     "input_schema": WRITE_TOOL["inputSchema"]},
    {"name": DELETE_TOOL["name"], "side_effect": "destructive",
     "policy": {"requires_approval": True},
     "input_schema": DELETE_TOOL["inputSchema"]}]}
OTHER_MANIFEST = {"tools": [READ_TOOL]}

GOOD_READ = {"customer_id": "CUS-000042"}
GOOD_WRITE = {"customer_id": "CUS-000042", "email": "a@example.com"}
GOOD_RESULT = {"content": [{"type": "text", "text": "CUS-000042 is pro"}],
               "structuredContent": {"customer_id": "CUS-000042",
                                     "tier": "pro"},
               "isError": False}
BAD_RESULT = {"content": [{"type": "text", "text": "x"}],
              "structuredContent": {"customer_id": "CUS-000042",
                                    "tier": "platinum"},
              "isError": False}
ROUTE = {"toolgate_snapshot": "mesh-e2e"}
OK = 0
PERMISSION_DENIED = 7


class Mesh(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.server = h.Server()
        cls.snapshot = cls.server.rpc("CreateSnapshot", pb.CreateSnapshotRequest(
            manifest_json=json.dumps(MANIFEST), name="mesh-e2e"),
            pb.CreateSnapshotResponse).snapshot_id
        cls.other = cls.server.rpc("CreateSnapshot", pb.CreateSnapshotRequest(
            manifest_json=json.dumps(OTHER_MANIFEST), name="mesh-other"),
            pb.CreateSnapshotResponse).snapshot_id

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def open_run(self, snapshot=None, **limits):
        return self.server.rpc("OpenRun", pb.OpenRunRequest(
            snapshot_id=snapshot or self.snapshot, model="mesh", **limits),
            pb.OpenRunResponse)

    def run_headers(self, run):
        return {"x-toolgate-run-id": run.run_id,
                "x-toolgate-run-token": run.run_token}

    def check(self, body, run=None, headers=None, context=ROUTE, **kw):
        all_headers = dict(self.run_headers(run) if run else {})
        all_headers.update(headers or {})
        return self.server.authz.Check(h.check_request(
            body, all_headers, context=context, **kw), timeout=10)

    def assert_allowed(self, resp):
        self.assertEqual(resp.status.code, OK, resp)
        self.assertTrue(resp.HasField("ok_response"), resp)
        self.assertIn("x-toolgate-run-token",
                      resp.ok_response.headers_to_remove)
        return h.header_values(resp.ok_response.headers)

    def assert_denied(self, resp, http_status=200):
        self.assertEqual(resp.status.code, PERMISSION_DENIED, resp)
        self.assertTrue(resp.HasField("denied_response"), resp)
        denied = resp.denied_response
        self.assertEqual(denied.status.code, http_status)
        self.assertEqual(h.header_values(denied.headers)["content-type"],
                         "application/json")
        return json.loads(denied.body)

    def assert_rpc_error(self, resp, call_id, code, reason=None):
        body = self.assert_denied(resp)
        self.assertEqual(body["jsonrpc"], "2.0")
        self.assertEqual(body["id"], call_id)
        self.assertEqual(body["error"]["code"], code, body)
        if reason is not None:
            self.assertEqual(body["error"]["data"]["reason"], reason, body)
        return body["error"]

    # ---- ext_authz: tools/call through the whole pipeline

    def test_allowed_call_removes_token_and_names_audit_id(self):
        run = self.open_run()
        resp = self.check(h.tools_call("get_customer", GOOD_READ), run)
        added = self.assert_allowed(resp)
        self.assertTrue(added["x-toolgate-audit-id"])
        self.assertEqual(added["x-toolgate-snapshot"], self.snapshot)
        self.assertEqual(added["x-toolgate-tool"], "get_customer")
        self.assertTrue(added["x-toolgate-run-grant"])
        lines = [l for l in self.server.audit_lines()
                 if l["audit_id"] == added["x-toolgate-audit-id"]]
        self.assertEqual(len(lines), 1)
        self.assertEqual(lines[0]["source"], "envoy_ext_authz")
        self.assertEqual(lines[0]["rpc"], "ValidateToolCall")
        self.assertEqual(lines[0]["decision"], "ALLOW")
        self.assertEqual(lines[0]["run_id"], run.run_id)

    def test_rejections_carry_violations_and_repair_prompt(self):
        cases = [
            ("unknown tool", h.tools_call("drop_db", {}), "unknown_tool", ""),
            ("missing required", h.tools_call("get_customer", {}),
             "invalid_arguments", ""),
            ("pattern", h.tools_call("get_customer", {"customer_id": "42"}),
             "invalid_arguments", "/customer_id"),
            ("extra property", h.tools_call(
                "get_customer", dict(GOOD_READ, x=1)), "invalid_arguments",
             "/x"),
        ]
        for label, body, code, pointer in cases:
            with self.subTest(label):
                run = self.open_run()
                error = self.assert_rpc_error(
                    self.check(body, run), 1, -32602)
                data = error["data"]
                self.assertEqual(data["decision"], "REJECT")
                self.assertTrue(data["repair_prompt"])
                self.assertTrue(data["audit_id"])
                if code:
                    self.assertEqual(data["violations"][0]["code"], code)
                    self.assertEqual(data["violations"][0]["pointer"], pointer)

    def test_rest_route_gets_403_json(self):
        route = dict(ROUTE, toolgate_tool_path="/tools/{name}")
        run = self.open_run()
        ok = self.check(GOOD_READ, run, context=route,
                        path="/tools/get_customer")
        self.assertEqual(self.assert_allowed(ok)["x-toolgate-tool"],
                         "get_customer")
        denied = self.check({"customer_id": "x"}, run, context=route,
                            path="/tools/get_customer")
        body = self.assert_denied(denied, 403)
        self.assertEqual(body["error"]["code"], -32602)
        self.assertNotIn("jsonrpc", body)
        nowhere = self.check(GOOD_READ, run, context=route, path="/other")
        self.assertEqual(self.assert_denied(nowhere, 403)["error"]["data"]
                         ["reason"], "no_tool")

    def test_needs_approval_then_allowed_with_the_approval(self):
        run = self.open_run()
        call = h.tools_call("delete_customer", {"customer_id": "CUS-1"}, "d1")
        error = self.assert_rpc_error(self.check(call, run), "d1", -32040,
                                      "needs_approval")
        approval = error["data"]["approval_id"]
        self.assertTrue(approval)
        self.server.rpc("DecideApproval", pb.DecideApprovalRequest(
            approval_id=approval, approve=True, approver="ops",
            reason="test"), pb.DecideApprovalResponse)
        self.assert_allowed(self.check(
            call, run, headers={"x-toolgate-approval-id": approval}))

    def test_breaker_stops_the_run(self):
        run = self.open_run(max_consecutive_rejects=2)
        bad = h.tools_call("get_customer", {}, 9)
        self.assert_rpc_error(self.check(bad, run), 9, -32602)
        error = None
        for _ in range(3):
            resp = self.check(bad, run)
            body = self.assert_denied(resp)
            if body["error"]["code"] == -32041:
                error = body["error"]
                break
        self.assertIsNotNone(error, "the breaker never stopped the run")
        self.assertEqual(error["data"]["decision"], "STOP")
        self.assertTrue(error["data"]["stop_reason"])

    # ---- ext_authz: what passes and what is denied before any decision

    def test_lifecycle_and_read_methods_pass(self):
        for method in ("initialize", "notifications/initialized", "ping",
                       "tools/list", "resources/list", "resources/read",
                       "resources/templates/list", "prompts/list",
                       "prompts/get", "completion/complete",
                       "logging/setLevel"):
            with self.subTest(method):
                body = {"jsonrpc": "2.0", "method": method, "params": {}}
                if not method.startswith("notifications/"):
                    body["id"] = 3
                added = self.assert_allowed(self.check(body))
                self.assertNotIn("x-toolgate-run-grant", added)

    def test_other_methods_and_non_requests_are_denied(self):
        cases = [
            ({"jsonrpc": "2.0", "id": 4, "method": "sampling/createMessage"},
             4, "method_not_allowed"),
            ({"jsonrpc": "2.0", "id": 5, "result": {}}, 5, "not_a_request"),
            ({"id": 6, "method": "ping"}, 6, "not_jsonrpc"),
            # Params the engine would read as another shape of output.
            ({"jsonrpc": "2.0", "id": 7, "method": "tools/call"}, 7,
             "invalid_params"),
            ({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
              "params": {"tool_calls": [{"type": "function", "function": {
                  "name": "get_customer",
                  "arguments": json.dumps(GOOD_READ)}}]}}, 8,
             "invalid_params"),
            ({"jsonrpc": "2.0", "id": None, "method": "ping"}, None,
             "not_jsonrpc"),
        ]
        for body, call_id, reason in cases:
            with self.subTest(reason):
                self.assert_rpc_error(self.check(body), call_id, -32042, reason)

    def test_batches(self):
        run = self.open_run()
        good = [{"jsonrpc": "2.0", "id": 1, "method": "ping"},
                h.tools_call("get_customer", GOOD_READ, 2)]
        self.assert_allowed(self.check(good, run))
        bad = [{"jsonrpc": "2.0", "id": 1, "method": "ping"},
               h.tools_call("get_customer", {}, 2)]
        body = self.assert_denied(self.check(bad, run))
        self.assertIsInstance(body, list)
        self.assertEqual([m["id"] for m in body], [1, 2])
        self.assertEqual(body[0]["error"]["data"]["reason"], "batch_denied")
        self.assertEqual(body[1]["error"]["code"], -32602)
        # After a denied message, later calls are not decided at all.
        before = len(self.server.audit_lines())
        first_bad = [h.tools_call("get_customer", {}, 1),
                     h.tools_call("get_customer", GOOD_READ, 2)]
        body = self.assert_denied(self.check(first_bad, run))
        self.assertEqual(body[0]["error"]["code"], -32602)
        self.assertEqual(body[1]["error"]["data"]["reason"], "batch_denied")
        self.assertEqual(len(self.server.audit_lines()), before + 1)

    def test_a_batch_is_one_turn(self):
        run = self.open_run()
        batch = [h.tools_call("get_customer", GOOD_READ, 1),
                 h.tools_call("delete_customer", {"customer_id": "CUS-1"}, 2)]
        before = len(self.server.audit_lines())
        body = self.assert_denied(self.check(batch, run))
        self.assertEqual([m["id"] for m in body], [1, 2])
        self.assertEqual(body[0]["error"]["data"]["reason"], "batch_denied")
        self.assertEqual(body[1]["error"]["code"], -32040)
        records = self.server.audit_lines()[before:]
        self.assertEqual([(r["decision"], r["tools"]) for r in records],
                         [("NEEDS_APPROVAL",
                           ["get_customer", "delete_customer"])])
        approval = body[1]["error"]["data"]["approval_id"]
        self.server.rpc("DecideApproval", pb.DecideApprovalRequest(
            approval_id=approval, approve=True, approver="ops",
            reason="test"), pb.DecideApprovalResponse)
        added = self.assert_allowed(self.check(
            batch, run, headers={"x-toolgate-approval-id": approval}))
        self.assertEqual(len(added["x-toolgate-audit-id"].split(",")), 1)
        # The run's one-time grant for ext_proc, as for a single call.
        self.assertTrue(added["x-toolgate-run-grant"])
        self.assertEqual(added["x-toolgate-tool"], "")

    def test_requests_a_server_could_read_otherwise(self):
        call = h.tools_call("get_customer", GOOD_READ, 5)
        for ctype in ("application/json; charset=utf-7", "text/plain"):
            with self.subTest(ctype):
                self.assert_rpc_error(self.check(
                    call, headers={"content-type": ctype}, context=ROUTE,
                    raw=True), 5, -32042, "unsupported_content_type")
        self.assert_rpc_error(self.check(
            call, headers={"content-encoding": "gzip"}), 5, -32042,
            "unsupported_content_encoding")
        route = dict(ROUTE, toolgate_tool_path="/tools/{name}")
        for path, reason in [
                ("/tools/lookup_customer?customer_id=CUS-000043",
                 "query_not_allowed"),
                ("/tools/lookup_customer?", "query_not_allowed"),
                ("/tools/lookup_customer#f", "query_not_allowed"),
                ("/tools/lookup_customer%3Fx=1", "no_tool")]:
            with self.subTest(path):
                body = self.assert_denied(self.check(
                    GOOD_READ, context=route, path=path), 403)
                self.assertEqual(body["error"]["data"]["reason"], reason)

    def test_unreadable_partial_missing_and_oversize_bodies(self):
        call = json.dumps(h.tools_call("get_customer", GOOD_READ))
        dup = ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":'
               '{"name":"get_customer","arguments":{"customer_id":"CUS-000042",'
               '"customer_id":"CUS-000043"}}}')
        cases = [
            ("partial header", dict(body=call, headers={
                "x-envoy-auth-partial-body": "true"}), "partial_body"),
            ("shorter than size", dict(body=call[:20], size=len(call)),
             "partial_body"),
            ("missing", dict(body=None), "missing_body"),
            ("oversize", dict(body=json.dumps(h.tools_call(
                "get_customer", {"customer_id": "C" * 300000}))),
             "body_too_large"),
            ("not json", dict(body="tools/call get_customer"),
             "unreadable_body"),
            ("duplicate key", dict(body=dup), "unreadable_body"),
            ("two messages", dict(body=call + call), "unreadable_body"),
            ("empty batch", dict(body="[]"), "unreadable_body"),
        ]
        for label, kw, reason in cases:
            with self.subTest(label):
                run = self.open_run()
                body = kw.pop("body")
                # The id is echoed whenever the body is one readable message.
                call_id = 1 if label == "partial header" else None
                error = self.assert_rpc_error(
                    self.check(body, run, **kw), call_id, -32042, reason)
                if label == "duplicate key":
                    self.assertIn("duplicate", error["message"])

    def test_run_and_snapshot_headers(self):
        run = self.open_run()
        other_run = self.open_run(snapshot=self.other)
        call = h.tools_call("get_customer", GOOD_READ)
        wrong_token = dict(self.run_headers(run))
        wrong_token["x-toolgate-run-token"] = "0" * 64
        cases = [
            ("wrong token", dict(headers=wrong_token), "run_rejected"),
            ("run without token", dict(headers={
                "x-toolgate-run-id": run.run_id}), "run_rejected"),
            ("token without run", dict(headers={
                "x-toolgate-run-token": run.run_token}), "run_rejected"),
            ("unknown run", dict(headers={
                "x-toolgate-run-id": "run-nope",
                "x-toolgate-run-token": run.run_token}), "run_rejected"),
            ("cross-snapshot run", dict(run=other_run), "run_rejected"),
            ("no snapshot, no run", dict(context={}), "no_snapshot"),
            ("unknown snapshot", dict(run=run, context={
                "toolgate_snapshot": "nope"}), "no_snapshot"),
            ("header disagrees with route", dict(run=run, headers={
                "x-toolgate-snapshot": self.other}), "no_snapshot"),
        ]
        for label, kw, reason in cases:
            with self.subTest(label):
                self.assert_rpc_error(self.check(call, **kw), 1, -32042,
                                      reason)
        # A route without a snapshot (Istio): the run's pinned one.
        added = self.assert_allowed(self.check(call, run, context={}))
        self.assertEqual(added["x-toolgate-snapshot"], self.snapshot)

    def test_stateless_snapshot_header_and_envoy_encodings(self):
        call = h.tools_call("get_customer", GOOD_READ)
        for label, kw in [("headers", {}), ("raw body", {"raw": True}),
                          ("header_map", {"header_map": True})]:
            with self.subTest(label):
                added = self.assert_allowed(self.check(
                    call, headers={"x-toolgate-snapshot": self.snapshot},
                    context={}, **kw))
                self.assertEqual(added["x-toolgate-snapshot"], self.snapshot)
                self.assertNotIn("x-toolgate-run-grant", added)
        # By id on the route as well as by name.
        self.assert_allowed(self.check(
            call, context={"toolgate_snapshot": self.snapshot}))

    def test_get_is_405_and_delete_passes(self):
        self.assert_denied(self.check(None, method="GET"), 405)
        self.assert_allowed(self.check(None, method="DELETE"))

    # ---- ext_proc: the tool's answer

    def grant_for(self, run, call):
        added = self.assert_allowed(self.check(call, run))
        return added

    def process(self, call, answer, headers, content_type="application/json",
                status="200"):
        """Runs one request/answer through ext_proc; returns the last reply."""
        stream = h.ExtProcStream(self.server.ext_proc)
        try:
            first = stream.request_headers(dict(
                {":method": "POST", ":path": "/mcp"}, **headers))
            self.assertIn("x-toolgate-run-grant", first.request_headers.response
                          .header_mutation.remove_headers)
            reply = stream.request_body(json.dumps(call))
            self.assertTrue(reply.HasField("request_body"), reply)
            reply = stream.response_headers({":status": status,
                                             "content-type": content_type})
            if reply.HasField("immediate_response"):
                return reply
            return stream.response_body(answer)
        finally:
            stream.close()

    def upstream_headers(self, added, run):
        # What Envoy forwards after ext_authz: the token removed, the
        # grant, snapshot and tool set.
        return {"x-toolgate-run-id": run.run_id,
                "x-toolgate-snapshot": added["x-toolgate-snapshot"],
                "x-toolgate-tool": added["x-toolgate-tool"],
                "x-toolgate-run-grant": added["x-toolgate-run-grant"]}

    def answer(self, result, call_id=1):
        return json.dumps({"jsonrpc": "2.0", "id": call_id, "result": result})

    def test_valid_answers_continue(self):
        run = self.open_run()
        call = h.tools_call("get_customer", GOOD_READ)
        for label, content_type, body in [
                ("json", "application/json", self.answer(GOOD_RESULT)),
                ("sse", "text/event-stream",
                 'event: message\ndata: {"jsonrpc":"2.0","method":'
                 '"notifications/progress","params":{}}\n\n'
                 "data: " + self.answer(GOOD_RESULT) + "\n\n")]:
            with self.subTest(label):
                added = self.grant_for(run, call)
                reply = self.process(call, body, self.upstream_headers(
                    added, run), content_type)
                self.assertTrue(reply.HasField("response_body"), reply)
        sources = {l.get("source") for l in self.server.audit_lines()
                   if l["rpc"] == "ValidateToolOutput"}
        self.assertIn("envoy_ext_proc", sources)

    def assert_output_denied(self, reply, call_id, code, reason=None):
        self.assertTrue(reply.HasField("immediate_response"), reply)
        immediate = reply.immediate_response
        self.assertEqual(immediate.status.code, 502)
        body = json.loads(immediate.body)
        self.assertEqual(body["id"], call_id)
        self.assertEqual(body["error"]["code"], code, body)
        if reason:
            self.assertEqual(body["error"]["data"]["reason"], reason, body)
        return body["error"]

    def test_invalid_answers_become_a_jsonrpc_error(self):
        cases = [
            ("schema", "application/json", self.answer(BAD_RESULT, 7), -32043,
             "invalid_tool_output"),
            ("sse schema", "text/event-stream",
             "data: " + self.answer(BAD_RESULT, 7) + "\n\n", -32043,
             "invalid_tool_output"),
            ("tool error", "application/json", json.dumps(
                {"jsonrpc": "2.0", "id": 7, "error": {"code": -1,
                                                      "message": "x"}}),
             -32042, "tool_error"),
            ("html", "text/html", "<html>down</html>", -32042,
             "unsupported_content_type"),
            ("wrong id", "application/json", self.answer(GOOD_RESULT, 8),
             -32042, "unexpected_message"),
        ]
        for label, content_type, body, code, reason in cases:
            with self.subTest(label):
                run = self.open_run()
                call = h.tools_call("get_customer", GOOD_READ, 7)
                added = self.grant_for(run, call)
                reply = self.process(call, body, self.upstream_headers(
                    added, run), content_type)
                self.assert_output_denied(reply, 7, code, reason)

    def test_kill_switch_trips_through_the_mesh(self):
        run = self.open_run(kill_switch_threshold=2, kill_switch_window=2)
        call = h.tools_call("get_customer", GOOD_READ, 5)
        for _ in range(2):
            added = self.grant_for(run, call)
            self.assert_output_denied(self.process(
                call, self.answer(BAD_RESULT, 5),
                self.upstream_headers(added, run)), 5, -32043)
        write = h.tools_call("update_customer_email", GOOD_WRITE, 6)
        resp = self.check(write, run)
        body = self.assert_denied(resp)
        codes = [v["code"] for v in body["error"]["data"].get("violations",
                                                              [])]
        self.assertTrue("kill_switch_read_only" in codes or
                        body["error"]["data"]["reason"] ==
                        "kill_switch_read_only", body)
        # Reads still run.
        self.assert_allowed(self.check(call, run))

    def test_stream_faults_never_pass_an_unchecked_body(self):
        # A body before any headers.
        stream = h.ExtProcStream(self.server.ext_proc)
        reply = stream.response_body(self.answer(GOOD_RESULT))
        stream.close()
        self.assert_output_denied(reply, None, -32042, "stream_fault")
        # A response with no request: only toolgate's own deny passes.
        stream = h.ExtProcStream(self.server.ext_proc)
        reply = stream.response_headers({":status": "200"})
        stream.close()
        self.assert_output_denied(reply, None, -32042, "stream_fault")
        stream = h.ExtProcStream(self.server.ext_proc)
        self.assertTrue(stream.response_headers(
            {":status": "200", "x-toolgate-denied": "1"})
            .HasField("response_headers"))
        self.assertTrue(stream.response_body("{}").HasField("response_body"))
        stream.close()
        # A POST whose body never came to toolgate.
        stream = h.ExtProcStream(self.server.ext_proc)
        stream.request_headers({":method": "POST"})
        reply = stream.response_headers({":status": "200"})
        stream.close()
        self.assert_output_denied(reply, None, -32042, "stream_fault")
        # An answer in pieces.
        run = self.open_run()
        call = h.tools_call("get_customer", GOOD_READ)
        added = self.grant_for(run, call)
        stream = h.ExtProcStream(self.server.ext_proc)
        stream.request_headers(dict({":method": "POST"},
                                    **self.upstream_headers(added, run)))
        stream.request_body(json.dumps(call))
        stream.response_headers({":status": "200",
                                 "content-type": "application/json"})
        reply = stream.response_body(self.answer(GOOD_RESULT)[:10],
                                     end_of_stream=False)
        stream.close()
        self.assert_output_denied(reply, 1, -32042, "stream_fault")

    def test_run_without_grant_is_denied(self):
        run = self.open_run()
        call = h.tools_call("get_customer", GOOD_READ)
        added = self.grant_for(run, call)
        headers = self.upstream_headers(added, run)
        headers["x-toolgate-run-grant"] = "f" * 32
        reply = self.process(call, self.answer(GOOD_RESULT), headers)
        self.assert_output_denied(reply, 1, -32042, "run_grant_missing")
        # A grant is good once.
        headers = self.upstream_headers(self.grant_for(run, call), run)
        self.assertTrue(self.process(call, self.answer(GOOD_RESULT), headers)
                        .HasField("response_body"))
        self.assert_output_denied(
            self.process(call, self.answer(GOOD_RESULT), headers), 1, -32042,
            "run_grant_missing")

    def test_rest_answers(self):
        route = dict(ROUTE, toolgate_tool_path="/tools/{name}")
        run = self.open_run()
        cases = [
            ("valid", "application/json", "200",
             json.dumps({"customer_id": "CUS-000042", "tier": "pro"}), None),
            ("schema", "application/json", "200",
             json.dumps({"customer_id": "CUS-000042", "tier": "gold"}),
             -32043),
            ("html", "text/html", "200", "<html>maintenance</html>", -32043),
            ("500", "application/json", "500", "{}", -32043),
        ]
        for label, content_type, status, answer, code in cases:
            with self.subTest(label):
                added = self.assert_allowed(self.check(
                    GOOD_READ, run, context=route, path="/tools/lookup_customer"))
                stream = h.ExtProcStream(self.server.ext_proc)
                stream.request_headers(dict(
                    {":method": "POST", ":path": "/tools/lookup_customer"},
                    **self.upstream_headers(added, run)))
                stream.request_body(json.dumps(GOOD_READ))
                stream.response_headers({":status": status,
                                         "content-type": content_type})
                reply = stream.response_body(answer)
                stream.close()
                if code is None:
                    self.assertTrue(reply.HasField("response_body"), reply)
                    continue
                self.assertEqual(reply.immediate_response.status.code, 502)
                body = json.loads(reply.immediate_response.body)
                self.assertNotIn("jsonrpc", body)
                self.assertEqual(body["error"]["code"], code, body)

    def test_concurrent_calls_and_streams(self):
        # Many Checks and Process streams at once (run under --config=tsan
        # too): each gets its own run's answer, valid or not.
        import concurrent.futures

        def one(i):
            run = self.open_run()
            call = h.tools_call("get_customer", GOOD_READ, i)
            added = self.grant_for(run, call)
            result = GOOD_RESULT if i % 2 else BAD_RESULT
            reply = self.process(call, self.answer(result, i),
                                 self.upstream_headers(added, run))
            return i, reply

        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            for i, reply in pool.map(one, range(32)):
                if i % 2:
                    self.assertTrue(reply.HasField("response_body"), reply)
                else:
                    self.assert_output_denied(reply, i, -32043)

    def test_answers_of_other_methods_continue(self):
        stream = h.ExtProcStream(self.server.ext_proc)
        stream.request_headers({":method": "POST"})
        stream.request_body(json.dumps({"jsonrpc": "2.0", "id": 1,
                                        "method": "tools/list"}))
        stream.response_headers({":status": "200",
                                 "content-type": "application/json"})
        reply = stream.response_body('{"jsonrpc":"2.0","id":1,"result":{}}')
        stream.close()
        self.assertTrue(reply.HasField("response_body"), reply)


class Failing(unittest.TestCase):
    """toolgate that cannot decide (every audit write fails under
    --audit_required, as on a full disk): a deny, never an OK."""

    @classmethod
    def setUpClass(cls):
        cls.server = h.Server(audit="/dev/full", flags=["--audit_required"])
        cls.snapshot = cls.server.rpc("CreateSnapshot", pb.CreateSnapshotRequest(
            manifest_json=json.dumps(MANIFEST), name="mesh-e2e"),
            pb.CreateSnapshotResponse).snapshot_id

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_check_denies_unavailable(self):
        resp = self.server.authz.Check(h.check_request(
            h.tools_call("get_customer", GOOD_READ, 3), context=ROUTE),
            timeout=10)
        self.assertEqual(resp.status.code, PERMISSION_DENIED, resp)
        body = json.loads(resp.denied_response.body)
        self.assertEqual(body["id"], 3)
        self.assertEqual(body["error"]["code"], -32044)
        self.assertEqual(body["error"]["data"]["decision"], "UNAVAILABLE")

    def test_ext_proc_denies_unavailable(self):
        call = h.tools_call("get_customer", GOOD_READ, 4)
        stream = h.ExtProcStream(self.server.ext_proc)
        stream.request_headers({":method": "POST",
                                "x-toolgate-snapshot": self.snapshot})
        stream.request_body(json.dumps(call))
        stream.response_headers({":status": "200",
                                 "content-type": "application/json"})
        reply = stream.response_body(json.dumps(
            {"jsonrpc": "2.0", "id": 4, "result": GOOD_RESULT}))
        stream.close()
        self.assertEqual(reply.immediate_response.status.code, 502, reply)
        self.assertEqual(json.loads(reply.immediate_response.body)["error"]
                         ["code"], -32044)


if __name__ == "__main__":
    outcome = unittest.main(verbosity=2, exit=False).result
    if os.environ.get("XML_OUTPUT_FILE"):
        h.junit(outcome, os.environ["XML_OUTPUT_FILE"], "mesh_e2e")
    sys.exit(0 if outcome.wasSuccessful() else 1)
