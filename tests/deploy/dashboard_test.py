"""deploy/grafana/toolgate-dashboard.json against a real Prometheus.

A real toolgate serves a scripted mix of decisions (ALLOW, a REJECT and its
repair attempts, an approval asked and decided, a stream cut off, a verdict,
an invalid tool output) while Debian's prometheus scrapes its /metrics every
second. Then every panel's PromQL expression goes through Prometheus' HTTP
query API: each must parse, and the panels the mix exercises must return
data. The JSON must also be a Grafana dashboard model: the schema fields
present, unique panel ids, every query on the datasource variable.
"""
import json
import os
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.parse
import urllib.request

ROOT = os.path.join(os.environ.get("TEST_SRCDIR", "."),
                    os.environ.get("TEST_WORKSPACE", "toolgate"))
SERVER = os.path.join(ROOT, "server/toolgate")
CTL = os.path.join(ROOT, "client/toolgatectl")
DASHBOARD = os.path.join(ROOT, "deploy/grafana/toolgate-dashboard.json")
PROMETHEUS = "/usr/bin/prometheus"

# Panels whose series the mix below must produce (by title).
EXERCISED = {
    "Decisions by outcome", "ValidateToolCall reject ratio",
    "Reject ratio by tool", "Violations by code",
    "Repair loop: rejects by attempt", "Breaker and kill-switch trips",
    "Approvals", "Stream assembly failures", "Open runs and snapshots",
    "RPC errors", "Latency p50 by RPC", "Latency p99 by RPC",
    "Resident memory", "Threads and CPU", "Call stream bytes held",
    "Tracing: spans exported and dropped", "Syntax repairs applied",
    "Mesh decisions",
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if predicate():
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise AssertionError("timed out waiting for " + what)


def expand(expr):
    """Grafana's variables as the dashboard's defaults resolve them."""
    return expr.replace("$__rate_interval", "30s").replace("$job", "toolgate")


class DashboardTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        token = os.path.join(cls.dir, "admin.token")
        with open(token, "w") as f:
            f.write("dashboard-test-token\n")
        cls.token = token
        cls.metrics_port = free_port()
        port_file = os.path.join(cls.dir, "port")
        cls.server = subprocess.Popen(
            [SERVER, "--listen=127.0.0.1:0", "--port_file=" + port_file,
             "--metrics_listen=127.0.0.1:%d" % cls.metrics_port,
             "--admin_token_file=" + token, "--drain_notice_ms=0"],
            stderr=subprocess.DEVNULL)
        def port():
            if not os.path.exists(port_file):
                return ""
            with open(port_file) as f:
                return f.read().strip()
        wait_for(port, 20, "toolgate")
        cls.addr = "127.0.0.1:" + port()
        cls.prom_port = free_port()
        config = os.path.join(cls.dir, "prometheus.yml")
        with open(config, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n"
                    "scrape_configs:\n  - job_name: toolgate\n"
                    "    static_configs:\n      - targets: ['127.0.0.1:%d']\n"
                    % cls.metrics_port)
        cls.prometheus = subprocess.Popen(
            [PROMETHEUS, "--config.file=" + config,
             "--storage.tsdb.path=" + os.path.join(cls.dir, "tsdb"),
             "--web.listen-address=127.0.0.1:%d" % cls.prom_port],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: cls.query("up")["result"], 60, "a first scrape")
        cls.run_mix()
        time.sleep(4)  # A few scrapes after the mix, so rates see it.

    @classmethod
    def tearDownClass(cls):
        for p in (cls.prometheus, cls.server):
            p.terminate()
            p.wait(timeout=20)

    @classmethod
    def query(cls, expr):
        url = "http://127.0.0.1:%d/api/v1/query?%s" % (
            cls.prom_port, urllib.parse.urlencode({"query": expr}))
        try:
            with urllib.request.urlopen(url, timeout=10) as r:
                body = json.load(r)
        except urllib.error.HTTPError as e:
            try:
                body = json.load(e)
            except ValueError:
                # Not Prometheus's JSON: it is still starting (a plain-text
                # 503). An OSError, so wait_for tries again.
                raise e from None
        if body.get("status") != "success":
            raise AssertionError("%s: %s" % (expr, body))
        return body["data"]

    @classmethod
    def ctl(cls, *args, stdin=None, admin=False):
        cmd = [CTL, "--addr", cls.addr]
        if admin:
            cmd += ["--admin_token_file", cls.token]
        return subprocess.run(cmd + list(args), input=stdin,
                              capture_output=True, text=True)

    @classmethod
    def write(cls, name, value):
        path = os.path.join(cls.dir, name)
        with open(path, "w") as f:
            f.write(value if isinstance(value, str) else json.dumps(value))
        return path

    @classmethod
    def call(cls, name, arguments):
        return {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": name, "arguments": json.dumps(arguments)}}]}

    @classmethod
    def run_mix(cls):
        snap = json.loads(cls.ctl("get-snapshot", "--name", "billing").stdout)
        run = cls.ctl("open-run", "--snapshot", snap["snapshot_id"],
                      "--model", "m", "--max-rejects", "2")
        run_file = cls.write("run.json", run.stdout)
        good = cls.write("good.json", cls.call(
            "get_invoice", {"invoice_id": "INV-00000001"}))
        bad = cls.write("bad.json", cls.call("get_invoice", {"invoice_id": 7}))
        nope = cls.write("nope.json", cls.call("no_such_tool", {}))
        refund = cls.write("refund.json", cls.call("issue_refund", {
            "invoice_id": "INV-00000001", "reason": "duplicate",
            "amount": {"value": 5, "currency": "EUR"}}))
        for _ in range(3):
            cls.ctl("validate", "--run-file", run_file, "--native", good)
        cls.ctl("validate", "--run-file", run_file, "--native", bad)
        cls.ctl("validate", "--run-file", run_file, "--native", nope)  # Breaker.
        cls.ctl("reset-run", "--run-file", run_file)
        asked = json.loads(cls.ctl("validate", "--run-file", run_file,
                                   "--native", refund).stdout)
        cls.ctl("approvals", "decide", "--approval", asked["approval_id"],
                "--decision", "approve", "--approver", "ops", admin=True)
        cls.ctl("validate", "--snapshot", snap["snapshot_id"],
                "--text", cls.write("repair.txt",
                                    '```json\n{"name": "get_invoice", '
                                    '"arguments": {"invoice_id": '
                                    "'INV-00000002',}}\n```"),
                "--repair", "syntax")
        cut = cls.write("cut.jsonl", json.dumps(
            {"type": "message_start", "message": {"id": "m", "role":
                                                  "assistant", "content": []}}))
        cls.ctl("validate", "--snapshot", snap["snapshot_id"], "--stream", cut,
                "--stream-format", "anthropic_messages")
        cls.ctl("extract-verdict", "--envelope", cls.write(
            "env.txt", '```json\n{"verdict": "pass", "reason": "ok"}\n```'))
        for _ in range(3):  # Invalid outputs: the kill switch trips.
            cls.ctl("validate-output", "--run-file", run_file, "--tool",
                    "get_invoice", "--content-type", "text/html", "--status",
                    "200", "--body", cls.write("out.html", "<b>x</b>"))
        cls.ctl("open-run", "--snapshot", "sha256:" + "0" * 64)  # An error.

    def test_model_is_a_grafana_dashboard(self):
        with open(DASHBOARD) as f:
            dash = json.load(f)
        for field in ("uid", "title", "schemaVersion", "panels", "templating",
                      "time", "version"):
            self.assertIn(field, dash)
        variables = {v["name"]: v for v in dash["templating"]["list"]}
        self.assertEqual(variables["datasource"]["type"], "datasource")
        self.assertEqual(variables["datasource"]["query"], "prometheus")
        ids = [p["id"] for p in dash["panels"]]
        self.assertEqual(len(ids), len(set(ids)), "panel ids must be unique")
        for p in dash["panels"]:
            for key in ("id", "type", "title", "gridPos"):
                self.assertIn(key, p)
            if p["type"] == "row":
                continue
            self.assertEqual(p["datasource"]["uid"], "${datasource}", p["title"])
            self.assertTrue(p["targets"], p["title"])
            for t in p["targets"]:
                self.assertEqual(t["datasource"]["uid"], "${datasource}")
                self.assertIn("$job", t["expr"], p["title"])

    def test_the_mix_reached_the_series_the_panels_read(self):
        def value(expr):
            result = self.query(expr)["result"]
            return sum(float(r["value"][1]) for r in result)
        want = {
            'toolgate_tool_calls_total{tool="get_invoice",decision="ALLOW"}': 3,
            'toolgate_tool_calls_total{tool="(unknown)"}': 1,
            'toolgate_repair_attempts_total{attempt="1"}': 1,
            "toolgate_breaker_opened_total": 1,
            "toolgate_kill_switch_trips_total": 1,
            'toolgate_approvals_decided_total{decision="APPROVED"}': 1,
            'toolgate_violations_total{code="truncated_stream"}': 1,
            'toolgate_repairs_total{kind="trailing_comma"}': 1,
            'toolgate_decisions_total{rpc="ExtractVerdict",decision="PASS"}': 1,
            'toolgate_rpc_errors_total{rpc="OpenRun"}': 1,
            "process_resident_memory_bytes": 1,
            "toolgate_threads": 1,
        }
        for expr, least in want.items():
            self.assertGreaterEqual(value(expr), least, expr)

    def test_every_query_parses_and_the_exercised_panels_have_data(self):
        with open(DASHBOARD) as f:
            dash = json.load(f)
        titles = set()
        for p in dash["panels"]:
            if p["type"] == "row":
                continue
            titles.add(p["title"])
            results = [self.query(expand(t["expr"]))["result"]
                       for t in p["targets"]]
            if p["title"] in EXERCISED and p["title"] != "Mesh decisions" \
                    and p["title"] != "Tracing: spans exported and dropped":
                self.assertTrue(any(results), "no data for " + p["title"])
        self.assertEqual(EXERCISED - titles, set(), "panels missing")


if __name__ == "__main__":
    unittest.main()
