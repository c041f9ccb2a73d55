// Exports toolgate's spans over OTLP/gRPC (--otlp_endpoint) to an
// OpenTelemetry collector: opentelemetry.proto.collector.trace.v1
// TraceService/Export, one call per batch, with a deadline, from the
// tracer's own thread (core/trace/tracer.h). Built on OpenTelemetry's own
// protos (proto/opentelemetry, unchanged) and the gRPC toolgate already
// links: Debian ships no OpenTelemetry C++ SDK, and an exporter is small.
//
// Thread-safety: Export is called from one thread (the tracer's); the
// conversion functions keep no state.
#ifndef TOOLGATE_SERVER_OTLP_EXPORTER_H_
#define TOOLGATE_SERVER_OTLP_EXPORTER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/trace/tracer.h"
#include "absl/strings/string_view.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/impl/codegen/client_unary_call.h"
#include "grpcpp/impl/codegen/rpc_method.h"
#include "opentelemetry/proto/collector/trace/v1/trace_service.grpc.pb.h"

namespace toolgate {
namespace server {

struct OtlpOptions {
  std::string endpoint;  // HOST:PORT of the collector's OTLP/gRPC receiver.
  std::string ca_pem;    // TLS roots (--otlp_ca_file); empty: plaintext.
  absl::Duration timeout = absl::Seconds(1);  // Per Export call.
  std::string service_version;
};

// The request one batch becomes: one ResourceSpans (service.name
// "toolgate", service.version, service.instance.id), one ScopeSpans
// (scope "toolgate"). ToOtlpRequest builds it as a message (the tests'
// reference); EncodeOtlpRequest writes its serialized bytes directly from
// the spans, as Export sends them (the same bytes, at a fraction of the
// cost).
opentelemetry::proto::collector::trace::v1::ExportTraceServiceRequest
ToOtlpRequest(trace::SpanBatch batch,
              const OtlpOptions& options, const std::string& instance_id);

std::string EncodeOtlpRequest(trace::SpanBatch batch,
                              const OtlpOptions& options,
                              const std::string& instance_id);

// Writes ExportTraceServiceRequest bytes: sizes first, then one buffer of
// exactly the request's size (empty only if the two passes disagreed, a
// bug). Keeps its scratch between requests. Not thread-safe (the exporter's thread owns one).
class OtlpWriter {
 public:
  std::string Request(trace::SpanBatch batch,
                      const OtlpOptions& options,
                      const std::string& instance_id);

  // The two passes on their own, so the exporter writes straight into the
  // buffer gRPC sends: Measure returns the request's size; Write (same
  // arguments) fills out[0, size), false if the passes disagreed.
  size_t Measure(trace::SpanBatch batch,
                 const OtlpOptions& options, const std::string& instance_id);
  bool Write(trace::SpanBatch batch,
             const OtlpOptions& options, const std::string& instance_id,
             char* out, size_t size) const;

 private:
  // What Measure found, for Write.
  std::vector<size_t> span_sizes_;  // Per span of the batch.
  size_t resource_ = 0, scope_ = 0, resource_spans_ = 0;
};

class OtlpExporter : public trace::SpanExporter {
 public:
  // INVALID_ARGUMENT for an empty endpoint. Connecting is lazy: a
  // collector that is down at start costs dropped spans, not the start.
  static absl::StatusOr<std::unique_ptr<OtlpExporter>> Create(
      OtlpOptions options);

  absl::Status Export(trace::SpanBatch batch) override;

 private:
  OtlpExporter(OtlpOptions options, std::shared_ptr<grpc::Channel> channel);

  const OtlpOptions options_;
  const std::string instance_id_;
  const std::shared_ptr<grpc::Channel> channel_;
  const grpc::internal::RpcMethod export_method_;
  OtlpWriter writer_;  // Export's thread only.
};

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_OTLP_EXPORTER_H_
