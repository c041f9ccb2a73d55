"""Fixtures: a real toolgate server (TOOLGATE_SERVER, default the Bazel
build) on a free port, a Gate to it, and a snapshot of tests/manifest.json.
"""
import json
import os
import subprocess
import tempfile
import time

import pytest

import toolgate

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))


def server_binary():
    return os.environ.get("TOOLGATE_SERVER",
                          os.path.join(REPO, "bazel-bin/server/toolgate"))


def start_server(tmp, *flags):
    """Starts the sidecar on 127.0.0.1:0; returns (process, "host:port")."""
    port_file = os.path.join(tmp, "port")
    if os.path.exists(port_file):
        os.remove(port_file)
    log = open(os.path.join(tmp, "server.log"), "ab")
    proc = subprocess.Popen([server_binary(), "--listen=127.0.0.1:0",
                             "--port_file=" + port_file, *flags],
                            stdout=log, stderr=log)
    deadline = time.time() + 30
    while time.time() < deadline:
        if os.path.exists(port_file) and open(port_file).read().strip():
            return proc, "127.0.0.1:" + open(port_file).read().strip()
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError("toolgate did not start; see " + log.name)


# Approving needs the admin token on every listener, loopback included: the
# session's server has one, and admin calls (snapshots, approvals) send it.
ADMIN_TOKEN = "client-tests-admin-token"


@pytest.fixture(scope="session")
def server():
    tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
    token_file = os.path.join(tmp, "admin_token")
    with open(token_file, "w") as f:
        f.write(ADMIN_TOKEN + "\n")
    proc, target = start_server(tmp, "--approval_ttl_seconds=60",
                                "--admin_token_file=" + token_file)
    yield target
    proc.terminate()
    proc.wait(10)


@pytest.fixture(scope="session")
def manifest():
    with open(os.path.join(HERE, "manifest.json")) as f:
        return json.load(f)


@pytest.fixture()
def gate(server):
    with toolgate.Gate(server, timeout=5, admin_token=ADMIN_TOKEN) as g:
        yield g


@pytest.fixture()
def snapshot(gate, manifest):
    return gate.create_snapshot(manifest, name="client-tests")
