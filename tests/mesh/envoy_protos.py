"""Envoy's real API protos (../shared/envoy-api), compiled for Python at
test time: the oracle the mesh tests build requests with and parse answers
with. The folder is found through $TOOLGATE_ENVOY_API_DIR (scripts/test.sh
sets it) or by walking up from the runfiles to a shared/envoy-api beside
the repository; when it is missing the tests FAIL, they never skip.
"""
import importlib
import os
import subprocess
import sys
import tempfile

from google.protobuf import descriptor_pb2

# What toolgate and its example config touch (see envoy-api/SOURCE).
ROOTS = [
    "envoy/service/auth/v3/external_auth.proto",
    "envoy/service/ext_proc/v3/external_processor.proto",
    "envoy/config/bootstrap/v3/bootstrap.proto",
    "envoy/extensions/filters/http/ext_authz/v3/ext_authz.proto",
    "envoy/extensions/filters/http/ext_proc/v3/ext_proc.proto",
    "envoy/extensions/filters/http/router/v3/router.proto",
    "envoy/extensions/filters/network/http_connection_manager/v3/"
    "http_connection_manager.proto",
]


def find_api_dir():
    env = os.environ.get("TOOLGATE_ENVOY_API_DIR")
    if env:
        return env
    here = os.path.realpath(os.path.dirname(__file__))
    while here != "/":
        candidate = os.path.join(here, "shared", "envoy-api")
        if os.path.isdir(os.path.join(candidate, "envoy")):
            return candidate
        here = os.path.dirname(here)
    raise RuntimeError(
        "Envoy's API protos not found: set TOOLGATE_ENVOY_API_DIR to "
        "shared/envoy-api (scripts/test.sh does)")


def _closure(api, out):
    descriptors = os.path.join(out, "closure.pb")
    subprocess.run(["/usr/bin/protoc", "-I" + api, "--include_imports",
                    "--descriptor_set_out=" + descriptors] + ROOTS,
                   check=True, cwd=api)
    files = descriptor_pb2.FileDescriptorSet()
    with open(descriptors, "rb") as f:
        files.ParseFromString(f.read())
    return [f.name for f in files.file
            if not f.name.startswith("google/protobuf/")]


def load():
    """Generates the Python modules into a fresh folder and imports them all
    (so that every typed_config Any resolves); returns that folder."""
    api = find_api_dir()
    out = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
    names = _closure(api, out)
    # No __init__.py: google/rpc must stay a namespace package beside the
    # system's google.protobuf.
    subprocess.run(["/usr/bin/protoc", "-I" + api, "--python_out=" + out,
                    "--grpc_python_out=" + out,
                    "--plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin"]
                   + names, check=True, cwd=api)
    sys.path.insert(0, out)
    import google  # noqa: F401  (extend the namespace before importing)
    google.__path__.append(os.path.join(out, "google"))
    for name in names:
        importlib.import_module(name[:-len(".proto")].replace("/", ".")
                                + "_pb2")
    return out
