"""A live OTLP/gRPC trace receiver for bench/load/trace_overhead.sh: grpcio
serving opentelemetry.proto.collector.trace.v1.TraceService/Export, the
service compiled at start from shared/otel-proto (as tests/trace/trace_test.py
does). It parses every request, counts requests and spans, and keeps
nothing else (a benchmark sends millions of spans).

  /usr/bin/python3 bench/load/otlp_receiver.py PORT_FILE COUNTS_FILE

Writes its port to PORT_FILE once serving; on SIGTERM writes
{"requests": N, "spans": N} to COUNTS_FILE and exits. The protos come from
TOOLGATE_OTEL_PROTO_DIR, else the nearest shared/otel-proto above this file;
missing protos are an error, never a receiver that counts nothing.
"""
import concurrent.futures
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading


def otel_dir():
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


def load_otlp(out):
    src = otel_dir()
    protos = [os.path.relpath(os.path.join(d, f), src)
              for d, _, files in os.walk(os.path.join(src, "opentelemetry"))
              for f in files if f.endswith(".proto")]
    subprocess.run(["/usr/bin/protoc", "-I" + src, "--python_out=" + out,
                    "--grpc_out=" + out,
                    "--plugin=protoc-gen-grpc=/usr/bin/grpc_python_plugin"]
                   + protos, check=True, cwd=src)
    sys.path.insert(0, out)
    from opentelemetry.proto.collector.trace.v1 import (  # noqa: E402
        trace_service_pb2 as svc, trace_service_pb2_grpc as svc_grpc)
    return svc, svc_grpc


def main():
    import grpc
    port_file, counts_file = sys.argv[1], sys.argv[2]
    svc, svc_grpc = load_otlp(tempfile.mkdtemp())
    lock = threading.Lock()
    counts = {"requests": 0, "spans": 0}

    class Receiver(svc_grpc.TraceServiceServicer):
        def Export(self, request, context):
            n = sum(len(ss.spans) for rs in request.resource_spans
                    for ss in rs.scope_spans)
            with lock:
                counts["requests"] += 1
                counts["spans"] += n
            return svc.ExportTraceServiceResponse()

    server = grpc.server(concurrent.futures.ThreadPoolExecutor(2))
    svc_grpc.add_TraceServiceServicer_to_server(Receiver(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    with open(port_file + ".tmp", "w") as f:
        f.write(str(port))
    os.rename(port_file + ".tmp", port_file)
    while not done.wait(0.5):
        pass
    server.stop(1).wait()
    with lock, open(counts_file, "w") as f:
        json.dump(counts, f)


if __name__ == "__main__":
    main()
