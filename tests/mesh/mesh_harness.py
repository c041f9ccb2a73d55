"""A real toolgate on a free port, and Envoy's messages built with Envoy's
own protos (envoy_protos.py): what tests/mesh/*_test.py drive."""
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import tempfile
import time

import grpc

import envoy_protos

RUNFILES = os.environ.get("TEST_SRCDIR", "") + "/" + os.environ.get(
    "TEST_WORKSPACE", "toolgate")
SERVER = os.path.join(RUNFILES, "server/toolgate")
sys.path.insert(0, os.path.join(RUNFILES, "proto"))

envoy_protos.load()
from toolgate.v1 import toolgate_pb2 as pb  # noqa: E402
from envoy.service.auth.v3 import external_auth_pb2 as authz  # noqa: E402
from envoy.service.auth.v3 import external_auth_pb2_grpc as authz_grpc  # noqa: E402,E501
from envoy.service.ext_proc.v3 import external_processor_pb2 as ep  # noqa: E402,E501
from envoy.service.ext_proc.v3 import external_processor_pb2_grpc as ep_grpc  # noqa: E402,E501
from envoy.config.core.v3 import base_pb2  # noqa: E402


ADMIN_TOKEN = "mesh-tests-admin-token"


class RedisServer:
    """Debian's redis-server on a free loopback port in `directory`."""

    def __init__(self, directory):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
             "--dir", directory, "--appendonly", "yes", "--save", ""],
            stdout=subprocess.DEVNULL)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise AssertionError("redis-server did not start")

    def stop(self):
        self.proc.kill()
        self.proc.wait()


class Server:
    """toolgate with an audit log, on 127.0.0.1, with an admin token (which
    approving needs on every listener); rpc() sends it."""

    def __init__(self, audit=None, flags=()):
        self.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        self.redis = None
        flags = list(flags)
        # The *_redis targets run the same suite with the shared store.
        if (os.environ.get("TOOLGATE_TEST_STATE_STORE") == "redis" and
                not any(f.startswith("--state_store=") for f in flags)):
            self.redis = RedisServer(self.tmp)
            flags.append("--state_store=redis://127.0.0.1:%d" %
                         self.redis.port)
        port_file = os.path.join(self.tmp, "port")
        token_file = os.path.join(self.tmp, "admin_token")
        with open(token_file, "w") as f:
            f.write(ADMIN_TOKEN + "\n")
        self.audit = audit or os.path.join(self.tmp, "audit.jsonl")
        self.proc = subprocess.Popen(
            [SERVER, "--listen=127.0.0.1:0", "--port_file=" + port_file,
             "--audit_log=" + self.audit,
             "--admin_token_file=" + token_file] + list(flags))
        deadline = time.time() + 30
        port = ""
        while time.time() < deadline and not port:
            if os.path.exists(port_file):
                with open(port_file) as f:
                    port = f.read().strip()
            time.sleep(0.05)
        assert port, "server did not start"
        self.channel = grpc.insecure_channel("127.0.0.1:" + port)
        self.authz = authz_grpc.AuthorizationStub(self.channel)
        self.ext_proc = ep_grpc.ExternalProcessorStub(self.channel)

    def stop(self):
        self.channel.close()
        self.proc.send_signal(signal.SIGTERM)
        assert self.proc.wait(timeout=30) == 0, "SIGTERM must exit 0"
        if self.redis is not None:
            self.redis.stop()

    def rpc(self, method, request, response_type):
        call = self.channel.unary_unary(
            "/toolgate.v1.ToolGate/" + method,
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=response_type.FromString)
        return call(request, timeout=10,
                    metadata=(("authorization", "Bearer " + ADMIN_TOKEN),))

    def audit_lines(self):
        with open(self.audit) as f:
            return [json.loads(line) for line in f if line.strip()]


def check_request(body=None, headers=None, method="POST", path="/mcp",
                  context=None, raw=False, header_map=False, size=None):
    """A CheckRequest as Envoy's ext_authz sends it (with_request_body;
    raw=True: pack_as_bytes)."""
    request = authz.CheckRequest()
    http = request.attributes.request.http
    http.id = "req-1"
    http.method = method
    http.path = path
    http.host = "tools.internal"
    all_headers = {":method": method, ":path": path,
                   "content-type": "application/json"}
    all_headers.update(headers or {})
    if header_map:
        for k, v in all_headers.items():
            http.header_map.headers.add(key=k, raw_value=v.encode())
    else:
        for k, v in all_headers.items():
            http.headers[k] = v
    if body is not None:
        # bytes: sent as they are (raw_body), whatever they hold.
        data = body if isinstance(body, (str, bytes)) else json.dumps(body)
        if raw or isinstance(data, bytes):
            http.raw_body = data if isinstance(data, bytes) else data.encode()
        else:
            http.body = data
        http.size = (len(data if isinstance(data, bytes) else data.encode())
                     if size is None else size)
    for k, v in (context or {}).items():
        request.attributes.context_extensions[k] = v
    return request


def header_values(options):
    return {o.header.key: o.header.value for o in options}


def header_map(headers):
    hm = base_pb2.HeaderMap()
    for k, v in headers.items():
        hm.headers.add(key=k, raw_value=v.encode())
    return hm


class ExtProcStream:
    """One ext_proc stream: send a message, read toolgate's answer."""

    def __init__(self, stub):
        self.outbox = queue.Queue()
        self.replies = stub.Process(iter(self.outbox.get, None), timeout=10)

    def send(self, message):
        self.outbox.put(message)
        return next(self.replies)

    def close(self):
        self.outbox.put(None)

    def request_headers(self, headers):
        return self.send(ep.ProcessingRequest(request_headers=ep.HttpHeaders(
            headers=header_map(headers))))

    def request_body(self, body):
        return self.send(ep.ProcessingRequest(request_body=ep.HttpBody(
            body=body.encode(), end_of_stream=True)))

    def response_headers(self, headers, end_of_stream=False):
        return self.send(ep.ProcessingRequest(response_headers=ep.HttpHeaders(
            headers=header_map(headers), end_of_stream=end_of_stream)))

    def response_body(self, body, end_of_stream=True):
        return self.send(ep.ProcessingRequest(response_body=ep.HttpBody(
            body=body.encode(), end_of_stream=end_of_stream)))


def tools_call(name, arguments, call_id=1):
    return {"jsonrpc": "2.0", "id": call_id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}


def junit(result, path, name):
    failed = len(result.failures) + len(result.errors)
    with open(path, "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>'
                f'<testsuite name="{name}" tests="{result.testsRun}" '
                f'failures="{failed}" errors="0"></testsuite></testsuites>\n')
