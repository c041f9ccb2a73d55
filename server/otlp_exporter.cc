#include "server/otlp_exporter.h"

#include <unistd.h>

#include <variant>

#include "absl/strings/str_cat.h"

namespace toolgate {
namespace server {
namespace {

namespace otlp_common = opentelemetry::proto::common::v1;
namespace otlp_trace = opentelemetry::proto::trace::v1;
using opentelemetry::proto::collector::trace::v1::ExportTraceServiceRequest;
using opentelemetry::proto::collector::trace::v1::ExportTraceServiceResponse;

void SetValue(const trace::AttributeValue& value, otlp_common::AnyValue* out) {
  if (const auto* s = std::get_if<std::string>(&value)) {
    out->set_string_value(*s);
  } else if (const auto* i = std::get_if<int64_t>(&value)) {
    out->set_int_value(*i);
  } else if (const auto* b = std::get_if<bool>(&value)) {
    out->set_bool_value(*b);
  } else if (const auto* list = std::get_if<std::vector<std::string>>(&value)) {
    auto* array = out->mutable_array_value();
    for (const std::string& item : *list) {
      array->add_values()->set_string_value(item);
    }
  }
}

void AddAttribute(absl::string_view key, const trace::AttributeValue& value,
                  google::protobuf::RepeatedPtrField<otlp_common::KeyValue>* to) {
  otlp_common::KeyValue* kv = to->Add();
  kv->set_key(key.data(), key.size());
  SetValue(value, kv->mutable_value());
}

// An id's bytes, for set_*_id(data, size): no temporary string.
template <size_t N>
const char* Bytes(const std::array<uint8_t, N>& id) {
  return reinterpret_cast<const char*>(id.data());
}

template <size_t N>
bool Zero(const std::array<uint8_t, N>& id) {
  for (uint8_t b : id) {
    if (b != 0) return false;
  }
  return true;
}

void ToSpan(const trace::SpanData& s, otlp_trace::Span* out) {
  out->set_trace_id(Bytes(s.trace_id), s.trace_id.size());
  out->set_span_id(Bytes(s.span_id), s.span_id.size());
  if (!Zero(s.parent_span_id)) {
    out->set_parent_span_id(Bytes(s.parent_span_id), s.parent_span_id.size());
  }
  if (!s.tracestate.empty()) out->set_trace_state(s.tracestate);
  out->set_name(s.name);
  out->set_kind(s.server ? otlp_trace::Span::SPAN_KIND_SERVER
                         : otlp_trace::Span::SPAN_KIND_INTERNAL);
  out->set_start_time_unix_nano(static_cast<uint64_t>(s.start_unix_nanos));
  out->set_end_time_unix_nano(static_cast<uint64_t>(s.end_unix_nanos));
  for (const trace::Attribute& a : s.attributes) {
    AddAttribute(a.key, a.value, out->mutable_attributes());
  }
  if (s.error) {
    out->mutable_status()->set_code(otlp_trace::Status::STATUS_CODE_ERROR);
    out->mutable_status()->set_message(s.status_message);
  }
}

std::string InstanceId() {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  return absl::StrCat(host, "/", getpid());
}

}  // namespace

void FillOtlpRequest(const std::vector<trace::SpanData>& spans,
                     const OtlpOptions& options,
                     const std::string& instance_id,
                     ExportTraceServiceRequest* request) {
  otlp_trace::ResourceSpans* rs = request->add_resource_spans();
  auto* attrs = rs->mutable_resource()->mutable_attributes();
  AddAttribute("service.name", std::string("toolgate"), attrs);
  if (!options.service_version.empty()) {
    AddAttribute("service.version", options.service_version, attrs);
  }
  AddAttribute("service.instance.id", instance_id, attrs);
  otlp_trace::ScopeSpans* ss = rs->add_scope_spans();
  ss->mutable_scope()->set_name("toolgate");
  ss->mutable_spans()->Reserve(static_cast<int>(spans.size()));
  for (const trace::SpanData& s : spans) ToSpan(s, ss->add_spans());
}

ExportTraceServiceRequest ToOtlpRequest(
    const std::vector<trace::SpanData>& spans, const OtlpOptions& options,
    const std::string& instance_id) {
  ExportTraceServiceRequest request;
  FillOtlpRequest(spans, options, instance_id, &request);
  return request;
}

absl::StatusOr<std::unique_ptr<OtlpExporter>> OtlpExporter::Create(
    OtlpOptions options) {
  if (options.endpoint.empty()) {
    return absl::InvalidArgumentError("--otlp_endpoint: empty");
  }
  std::shared_ptr<grpc::ChannelCredentials> creds;
  if (options.ca_pem.empty()) {
    creds = grpc::InsecureChannelCredentials();
  } else {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = options.ca_pem;
    creds = grpc::SslCredentials(ssl);
  }
  std::shared_ptr<grpc::Channel> channel =
      grpc::CreateChannel(options.endpoint, creds);
  return std::unique_ptr<OtlpExporter>(
      new OtlpExporter(std::move(options), std::move(channel)));
}

OtlpExporter::OtlpExporter(OtlpOptions options,
                           std::shared_ptr<grpc::Channel> channel)
    : options_(std::move(options)),
      instance_id_(InstanceId()),
      stub_(opentelemetry::proto::collector::trace::v1::TraceService::NewStub(
          channel)) {}

absl::Status OtlpExporter::Export(const std::vector<trace::SpanData>& spans) {
  // One arena per batch: a batch is thousands of small messages and
  // strings, built once and dropped at once (without it, building and
  // freeing them cost more than sending them: bench/README.md "Tracing
  // overhead (issue 27)").
  google::protobuf::ArenaOptions arena_options;
  arena_options.start_block_size = 64 * 1024;
  arena_options.max_block_size = 1024 * 1024;
  google::protobuf::Arena arena(arena_options);
  auto* request =
      google::protobuf::Arena::CreateMessage<ExportTraceServiceRequest>(
          &arena);
  FillOtlpRequest(spans, options_, instance_id_, request);
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + options_.timeout));
  ExportTraceServiceResponse response;
  const grpc::Status status = stub_->Export(&context, *request, &response);
  if (!status.ok()) {
    return absl::UnavailableError(
        absl::StrCat("OTLP export to ", options_.endpoint, ": ",
                     status.error_message()));
  }
  // A partial success still lost the rejected spans.
  if (response.has_partial_success() &&
      response.partial_success().rejected_spans() > 0) {
    return absl::DataLossError(absl::StrCat(
        "OTLP collector rejected ", response.partial_success().rejected_spans(),
        " spans: ", response.partial_success().error_message()));
  }
  return absl::OkStatus();
}

}  // namespace server
}  // namespace toolgate
