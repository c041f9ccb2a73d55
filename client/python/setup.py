"""Generates the gRPC stubs from ../../proto at build time.

The stubs are never committed: build_py runs /usr/bin/protoc with Debian's
grpc_python_plugin on proto/toolgate/v1/toolgate.proto, so the package
always matches the proto it was built from. TOOLGATE_PROTO_DIR, PROTOC and
GRPC_PYTHON_PLUGIN override the locations.
"""
import os
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO = "toolgate/v1/toolgate.proto"


def generate(out_dir):
    proto_dir = os.environ.get("TOOLGATE_PROTO_DIR",
                               os.path.join(HERE, "..", "..", "proto"))
    if not os.path.exists(os.path.join(proto_dir, PROTO)):
        raise SystemExit(
            f"toolgate: {PROTO} not found under {proto_dir}; build from a "
            "toolgate checkout or set TOOLGATE_PROTO_DIR")
    protoc = os.environ.get("PROTOC", "/usr/bin/protoc")
    plugin = os.environ.get("GRPC_PYTHON_PLUGIN", "/usr/bin/grpc_python_plugin")
    os.makedirs(os.path.join(out_dir, "toolgate", "v1"), exist_ok=True)
    subprocess.run([protoc, "-I" + proto_dir,
                    "--plugin=protoc-gen-grpc_python=" + plugin,
                    "--python_out=" + out_dir, "--grpc_python_out=" + out_dir,
                    os.path.join(proto_dir, PROTO)], check=True)
    init = os.path.join(out_dir, "toolgate", "v1", "__init__.py")
    with open(init, "w") as f:
        f.write('"""Generated from proto/toolgate/v1/toolgate.proto."""\n')


class BuildPyWithStubs(build_py):
    """build_py that first writes toolgate/v1/*_pb2*.py into build_lib."""

    def run(self):
        super().run()
        generate(self.build_lib)


setup(cmdclass={"build_py": BuildPyWithStubs})
