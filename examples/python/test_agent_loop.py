"""Runs agent_loop.py against a real sidecar and checks the decisions, in
order. TOOLGATE_SERVER and TOOLGATE_CTL name the binaries (default: the
Bazel build); PYTHONPATH must hold the installed toolgate package."""
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
SERVER = os.environ.get("TOOLGATE_SERVER",
                        os.path.join(REPO, "bazel-bin/server/toolgate"))
CTL = os.environ.get("TOOLGATE_CTL",
                     os.path.join(REPO, "bazel-bin/client/toolgatectl"))

EXPECTED = [
    ("repair", "validate", "REJECT"),
    ("repair", "validate", "ALLOW"),
    ("repair", "run_tool", "update_ticket"),
    ("repair", "check_output", "VALID"),
    ("repair", "extract_verdict", "PASS"),
    ("breaker", "validate", "REJECT"),
    ("breaker", "validate", "REJECT"),
    ("breaker", "validate", "REJECT"),
    ("breaker", "validate", "STOP"),
    ("approval", "validate", "NEEDS_APPROVAL"),
    ("approval", "await_approval", "APPROVED"),
    ("approval", "validate", "ALLOW"),
    ("approval", "run_tool", "delete_ticket"),
    ("approval", "check_output", "VALID"),
    ("approval", "extract_verdict", "PASS"),
]


@contextlib.contextmanager
def running_server():
    """A toolgate server on a free port for one test; yields its target and
    the admin token file approvers use. Agents register their own tools
    (--snapshot_create=any) and never hold the token."""
    tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
    port_file = os.path.join(tmp, "port")
    token_file = os.path.join(tmp, "admin_token")
    with open(token_file, "w") as f:
        f.write("example-approver-token\n")
    server = subprocess.Popen([SERVER, "--listen=127.0.0.1:0",
                               "--port_file=" + port_file,
                               "--admin_token_file=" + token_file,
                               "--snapshot_create=any"])
    try:
        for _ in range(300):
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            time.sleep(0.05)
        yield "127.0.0.1:" + open(port_file).read().strip(), token_file
    finally:
        server.terminate()
        server.wait(10)


def test_agent_loop_decision_sequence():
    with running_server() as (target, token_file):
        out = subprocess.run(
            [sys.executable, os.path.join(HERE, "agent_loop.py"),
             "--target", target, "--toolgatectl", CTL,
             "--admin_token_file", token_file],
            capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    steps = [json.loads(line) for line in out.stdout.splitlines()]
    assert [(s["run"], s["step"], s["value"]) for s in steps] == \
        EXPECTED, out.stderr


def test_quickstart_prints_the_allowed_call():
    with running_server() as (target, _):
        out = subprocess.run([sys.executable,
                              os.path.join(HERE, "quickstart.py")],
                             capture_output=True, text=True, timeout=60,
                             env=dict(os.environ, TOOLGATE_ADDR=target))
    assert out.returncode == 0, out.stderr
    assert out.stdout == "run update_ticket {'priority': 'high'}\n"
