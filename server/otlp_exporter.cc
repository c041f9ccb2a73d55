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


constexpr char kExportMethod[] =
    "/opentelemetry.proto.collector.trace.v1.TraceService/Export";

}  // namespace

// Protobuf's wire format, written in field-number order (as protobuf
// serializes, so the bytes equal ToOtlpRequest's serialization: the test
// checks it). A nested message is written into its own buffer first, for
// its length; the buffers are kept between batches.
void OtlpWriter::Varint(uint64_t v, std::string& out) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void OtlpWriter::Bytes(int field, absl::string_view value, std::string& out) {
  Varint((static_cast<uint64_t>(field) << 3) | 2, out);
  Varint(value.size(), out);
  out.append(value.data(), value.size());
}

void OtlpWriter::Fixed64(int field, uint64_t value, std::string& out) {
  Varint((static_cast<uint64_t>(field) << 3) | 1, out);
  char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(value >> (8 * i));
  out.append(bytes, 8);
}

void OtlpWriter::Uint(int field, uint64_t value, std::string& out) {
  Varint(static_cast<uint64_t>(field) << 3, out);
  Varint(value, out);
}

// KeyValue{key = 1, value = 2: AnyValue{string 1 | bool 2 | int 3 |
// array 5: ArrayValue{values = 1}}}; a oneof member is written even when
// it is empty or zero.
void OtlpWriter::Attribute(int field, absl::string_view key,
                           const trace::AttributeValue& value,
                           std::string& out) {
  any_.clear();
  if (const auto* s = std::get_if<std::string>(&value)) {
    Bytes(1, *s, any_);
  } else if (const auto* i = std::get_if<int64_t>(&value)) {
    Uint(3, static_cast<uint64_t>(*i), any_);
  } else if (const auto* b = std::get_if<bool>(&value)) {
    Uint(2, *b ? 1 : 0, any_);
  } else if (const auto* list = std::get_if<std::vector<std::string>>(&value)) {
    array_.clear();
    for (const std::string& item : *list) {
      Varint((1 << 3) | 2, array_);
      Varint(item.size() + 1 + VarintSize(item.size()), array_);
      Bytes(1, item, array_);
    }
    Bytes(5, array_, any_);
  }
  kv_.clear();
  if (!key.empty()) Bytes(1, key, kv_);
  Bytes(2, any_, kv_);
  Bytes(field, kv_, out);
}

size_t OtlpWriter::VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

template <size_t N>
static bool AllZero(const std::array<uint8_t, N>& id) {
  for (uint8_t b : id) {
    if (b != 0) return false;
  }
  return true;
}

template <size_t N>
static absl::string_view View(const std::array<uint8_t, N>& id) {
  return absl::string_view(reinterpret_cast<const char*>(id.data()), N);
}

void OtlpWriter::Span(const trace::SpanData& s, std::string& out) {
  span_.clear();
  Bytes(1, View(s.trace_id), span_);
  Bytes(2, View(s.span_id), span_);
  if (!s.tracestate.empty()) Bytes(3, s.tracestate, span_);
  if (!AllZero(s.parent_span_id)) Bytes(4, View(s.parent_span_id), span_);
  if (!s.name.empty()) Bytes(5, s.name, span_);
  Uint(6, s.server ? otlp_trace::Span::SPAN_KIND_SERVER
                   : otlp_trace::Span::SPAN_KIND_INTERNAL,
       span_);
  if (s.start_unix_nanos != 0) {
    Fixed64(7, static_cast<uint64_t>(s.start_unix_nanos), span_);
  }
  if (s.end_unix_nanos != 0) {
    Fixed64(8, static_cast<uint64_t>(s.end_unix_nanos), span_);
  }
  for (const trace::Attribute& a : s.attributes) {
    Attribute(9, a.key, a.value, span_);
  }
  if (s.error) {
    std::string status;
    if (!s.status_message.empty()) Bytes(2, s.status_message, status);
    Uint(3, otlp_trace::Status::STATUS_CODE_ERROR, status);
    Bytes(15, status, span_);
  }
  Bytes(2, span_, out);
}

std::string OtlpWriter::Request(const std::vector<trace::SpanData>& spans,
                                const OtlpOptions& options,
                                const std::string& instance_id) {
  // ScopeSpans{scope = 1: {name = 1}, spans = 2}.
  scope_.clear();
  std::string scope_name;
  Bytes(1, "toolgate", scope_name);
  Bytes(1, scope_name, scope_);
  for (const trace::SpanData& s : spans) Span(s, scope_);
  // Resource{attributes = 1}.
  std::string resource;
  Attribute(1, "service.name", std::string("toolgate"), resource);
  if (!options.service_version.empty()) {
    Attribute(1, "service.version", options.service_version, resource);
  }
  Attribute(1, "service.instance.id", instance_id, resource);
  // ResourceSpans{resource = 1, scope_spans = 2}, the request's field 1.
  std::string head;
  Bytes(1, resource, head);
  Varint((2 << 3) | 2, head);
  Varint(scope_.size(), head);
  std::string out;
  out.reserve(scope_.size() + head.size() + 16);
  Varint((1 << 3) | 2, out);
  Varint(head.size() + scope_.size(), out);
  out.append(head);
  out.append(scope_);
  return out;
}

namespace {
}  // namespace

ExportTraceServiceRequest ToOtlpRequest(
    const std::vector<trace::SpanData>& spans, const OtlpOptions& options,
    const std::string& instance_id) {
  ExportTraceServiceRequest request;
  otlp_trace::ResourceSpans* rs = request.add_resource_spans();
  auto* attrs = rs->mutable_resource()->mutable_attributes();
  AddAttribute("service.name", std::string("toolgate"), attrs);
  if (!options.service_version.empty()) {
    AddAttribute("service.version", options.service_version, attrs);
  }
  AddAttribute("service.instance.id", instance_id, attrs);
  otlp_trace::ScopeSpans* ss = rs->add_scope_spans();
  ss->mutable_scope()->set_name("toolgate");
  for (const trace::SpanData& s : spans) ToSpan(s, ss->add_spans());
  return request;
}

std::string EncodeOtlpRequest(const std::vector<trace::SpanData>& spans,
                              const OtlpOptions& options,
                              const std::string& instance_id) {
  OtlpWriter w;
  return w.Request(spans, options, instance_id);
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
      channel_(std::move(channel)),
      export_method_(kExportMethod, grpc::internal::RpcMethod::NORMAL_RPC,
                     channel_) {}

absl::Status OtlpExporter::Export(const std::vector<trace::SpanData>& spans) {
  // The request's bytes written straight from the spans: building
  // protobuf messages for thousands of spans a second, then freeing them,
  // cost more than the rest of tracing (bench/README.md "Tracing
  // overhead (issue 27)").
  const std::string bytes = writer_.Request(spans, options_, instance_id_);
  grpc::Slice slice(bytes);
  const grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer reply;
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + options_.timeout));
  const grpc::Status status =
      grpc::internal::BlockingUnaryCall<grpc::ByteBuffer, grpc::ByteBuffer>(
          channel_.get(), export_method_, &context, request, &reply);
  if (!status.ok()) {
    return absl::UnavailableError(
        absl::StrCat("OTLP export to ", options_.endpoint, ": ",
                     status.error_message()));
  }
  ExportTraceServiceResponse response;
  std::vector<grpc::Slice> slices;
  std::string answer;
  if (reply.Dump(&slices).ok()) {
    for (const grpc::Slice& part : slices) {
      answer.append(reinterpret_cast<const char*>(part.begin()), part.size());
    }
  }
  if (!response.ParseFromString(answer)) {
    return absl::DataLossError(absl::StrCat(
        "OTLP export to ", options_.endpoint, ": unreadable response"));
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
