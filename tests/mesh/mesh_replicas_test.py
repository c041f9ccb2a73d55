"""The mesh hook over replicas sharing one state store (issue 26): Envoy's
ext_authz reaches one toolgate and its ext_proc another for the same call,
as a Service in front of several pods does. The grant ext_authz issues is
in the store, so ext_proc on the other replica checks the answer in the
same run, once; the kill switch counts outputs checked on either.

Run: bazel test //tests/mesh:mesh_replicas_test
"""
import json
import tempfile
import os
import unittest

import mesh_harness as h
from mesh_harness import pb
import mesh_e2e_test as e2e


class MeshReplicas(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.redis = h.RedisServer(
            tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR")))
        flags = ["--state_store=redis://127.0.0.1:%d" % cls.redis.port]
        cls.a = h.Server(flags=flags)
        cls.b = h.Server(flags=flags)
        cls.snapshot = cls.a.rpc("CreateSnapshot", pb.CreateSnapshotRequest(
            manifest_json=json.dumps(e2e.MANIFEST), name="mesh-e2e"),
            pb.CreateSnapshotResponse).snapshot_id

    @classmethod
    def tearDownClass(cls):
        cls.a.stop()
        cls.b.stop()
        cls.redis.stop()

    def open_run(self, **limits):
        return self.b.rpc("OpenRun", pb.OpenRunRequest(
            snapshot_id=self.snapshot, model="mesh", **limits),
            pb.OpenRunResponse)

    def grant_on_a(self, run, call):
        resp = self.a.authz.Check(h.check_request(
            call, {"x-toolgate-run-id": run.run_id,
                   "x-toolgate-run-token": run.run_token},
            context=e2e.ROUTE), timeout=10)
        self.assertEqual(resp.status.code, e2e.OK, resp)
        return h.header_values(resp.ok_response.headers)

    def process_on_b(self, call, answer, added, run):
        headers = {":method": "POST", ":path": "/mcp",
                   "x-toolgate-run-id": run.run_id,
                   "x-toolgate-snapshot": added["x-toolgate-snapshot"],
                   "x-toolgate-tool": added["x-toolgate-tool"],
                   "x-toolgate-run-grant": added["x-toolgate-run-grant"]}
        stream = h.ExtProcStream(self.b.ext_proc)
        try:
            stream.request_headers(headers)
            stream.request_body(json.dumps(call))
            reply = stream.response_headers({":status": "200",
                                             "content-type":
                                             "application/json"})
            if reply.HasField("immediate_response"):
                return reply
            return stream.response_body(answer)
        finally:
            stream.close()

    def answer(self, result, call_id):
        return json.dumps({"jsonrpc": "2.0", "id": call_id, "result": result})

    def test_ext_authz_on_one_replica_ext_proc_on_another(self):
        run = self.open_run()
        call = h.tools_call("get_customer", e2e.GOOD_READ, 3)
        added = self.grant_on_a(run, call)
        reply = self.process_on_b(call, self.answer(e2e.GOOD_RESULT, 3),
                                  added, run)
        self.assertTrue(reply.HasField("response_body"), reply)
        # The grant is good once, on any replica.
        again = self.process_on_b(call, self.answer(e2e.GOOD_RESULT, 3),
                                  added, run)
        self.assertTrue(again.HasField("immediate_response"), again)
        body = json.loads(again.immediate_response.body)
        self.assertEqual(body["error"]["data"]["reason"], "run_grant_missing")

    def test_kill_switch_counts_outputs_checked_on_either_replica(self):
        run = self.open_run(kill_switch_threshold=2, kill_switch_window=2)
        call = h.tools_call("get_customer", e2e.GOOD_READ, 5)
        for _ in range(2):
            added = self.grant_on_a(run, call)
            reply = self.process_on_b(call, self.answer(e2e.BAD_RESULT, 5),
                                      added, run)
            self.assertTrue(reply.HasField("immediate_response"), reply)
        write = h.tools_call("update_customer_email", e2e.GOOD_WRITE, 6)
        resp = self.a.authz.Check(h.check_request(
            write, {"x-toolgate-run-id": run.run_id,
                    "x-toolgate-run-token": run.run_token},
            context=e2e.ROUTE), timeout=10)
        self.assertEqual(resp.status.code, e2e.PERMISSION_DENIED, resp)
        self.assertIn("kill_switch_read_only", resp.denied_response.body)


if __name__ == "__main__":
    unittest.main()
