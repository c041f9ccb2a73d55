#!/usr/bin/python3
"""A real OTLP/gRPC trace receiver as a process, for tests in other
languages (client/node/test/trace.test.mjs): grpcio serving
opentelemetry.proto.collector.trace.v1.TraceService/Export, compiled at
start from shared/otel-proto (TOOLGATE_OTEL_PROTO_DIR, else the
shared/otel-proto found walking up from this file; exits 2 when missing).

Prints "port N" once listening on 127.0.0.1, then one JSON line per span
received: trace_id, span_id, parent_span_id (hex), name, kind,
trace_state, attributes (key -> value as text). Stops when stdin closes.
"""
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import threading


def find_otel_dir():
    env = os.environ.get("TOOLGATE_OTEL_PROTO_DIR")
    if env:
        return env
    here = os.path.realpath(os.path.dirname(__file__))
    while here != "/":
        candidate = os.path.join(here, "shared", "otel-proto")
        if os.path.isdir(os.path.join(candidate, "opentelemetry")):
            return candidate
        here = os.path.dirname(here)
    sys.exit("otlp_receiver: OpenTelemetry's protos not found: set "
             "TOOLGATE_OTEL_PROTO_DIR to shared/otel-proto")


def load_otlp():
    src = find_otel_dir()
    out = tempfile.mkdtemp(prefix="otlp-receiver-")
    protos = [os.path.relpath(os.path.join(d, f), src)
              for d, _, files in os.walk(os.path.join(src, "opentelemetry"))
              for f in files if f.endswith(".proto")]
    if not protos:
        sys.exit("otlp_receiver: no .proto under " + src)
    subprocess.run(["/usr/bin/protoc", "-I" + src, "--python_out=" + out,
                    "--grpc_out=" + out,
                    "--plugin=protoc-gen-grpc=/usr/bin/grpc_python_plugin"]
                   + protos, check=True, cwd=src)
    sys.path.insert(0, out)
    from opentelemetry.proto.collector.trace.v1 import (  # noqa: E402
        trace_service_pb2 as svc, trace_service_pb2_grpc as svc_grpc)
    return svc, svc_grpc


def as_text(value):
    kind = value.WhichOneof("value")
    return "" if kind is None else str(getattr(value, kind))


def span_json(span):
    return json.dumps({
        "trace_id": span.trace_id.hex(), "span_id": span.span_id.hex(),
        "parent_span_id": span.parent_span_id.hex(), "name": span.name,
        "kind": span.kind, "trace_state": span.trace_state,
        "attributes": {kv.key: as_text(kv.value) for kv in span.attributes}})


def main():
    import grpc
    svc, svc_grpc = load_otlp()
    lock = threading.Lock()

    class Receiver(svc_grpc.TraceServiceServicer):
        def Export(self, request, context):
            lines = [span_json(s) for rs in request.resource_spans
                     for ss in rs.scope_spans for s in ss.spans]
            with lock:
                for line in lines:
                    print(line)
                sys.stdout.flush()
            return svc.ExportTraceServiceResponse()

    server = grpc.server(concurrent.futures.ThreadPoolExecutor(2))
    svc_grpc.add_TraceServiceServicer_to_server(Receiver(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    with lock:
        print("port %d" % port, flush=True)
    sys.stdin.read()
    server.stop(0)


if __name__ == "__main__":
    main()
