"""The stubs the package ships are exactly what protoc generates from the
repository's proto: a stale or hand-edited copy fails here."""
import os
import subprocess
import tempfile

from conftest import REPO
from toolgate.v1 import toolgate_pb2, toolgate_pb2_grpc

PROTO_DIR = os.environ.get("TOOLGATE_PROTO_DIR", os.path.join(REPO, "proto"))


def generate():
    out = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
    subprocess.run(["/usr/bin/protoc", "-I" + PROTO_DIR,
                    "--plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin",
                    "--python_out=" + out, "--grpc_python_out=" + out,
                    os.path.join(PROTO_DIR, "toolgate/v1/toolgate.proto")],
                   check=True)
    return os.path.join(out, "toolgate", "v1")


def test_shipped_stubs_match_the_proto():
    fresh = generate()
    for module in (toolgate_pb2, toolgate_pb2_grpc):
        name = os.path.basename(module.__file__)
        with open(module.__file__, "rb") as shipped, \
                open(os.path.join(fresh, name), "rb") as want:
            assert shipped.read() == want.read(), name + " is stale"


def test_every_rpc_has_a_stub():
    service = toolgate_pb2.DESCRIPTOR.services_by_name["ToolGate"]
    source = open(toolgate_pb2_grpc.__file__).read()
    for method in service.methods:
        assert f"self.{method.name} = channel." in source, method.name
