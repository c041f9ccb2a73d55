#include "server/otlp_exporter.h"

#include <unistd.h>

#include <cstring>
#include <variant>

#include "absl/strings/str_cat.h"
#include "grpc/slice.h"

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
  } else if (const auto* t = std::get_if<trace::StaticText>(&value)) {
    out->set_string_value(std::string(t->view()));
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
  out->set_name(s.Name().data(), s.Name().size());
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
// checks it). Sizes first, then one pass writing into one buffer of
// exactly that size: no nested buffers, no copies, no per-byte appends.
// Every field number used is below 16, so every tag is one byte.
namespace {

size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// A length-delimited field's size, tag and length included.
size_t LenField(size_t n) { return 1 + VarintSize(n) + n; }

char* PutVarint(char* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}

char* PutTag(char* p, int field, int wire_type) {
  *p++ = static_cast<char>((field << 3) | wire_type);
  return p;
}

// Tag and length of a length-delimited field whose body follows.
char* PutLen(char* p, int field, size_t n) {
  return PutVarint(PutTag(p, field, 2), n);
}

char* PutBytes(char* p, int field, absl::string_view value) {
  p = PutLen(p, field, value.size());
  if (!value.empty()) memcpy(p, value.data(), value.size());
  return p + value.size();
}

char* PutUint(char* p, int field, uint64_t value) {
  return PutVarint(PutTag(p, field, 0), value);
}

char* PutFixed64(char* p, int field, uint64_t value) {
  p = PutTag(p, field, 1);
  for (int i = 0; i < 8; ++i) *p++ = static_cast<char>(value >> (8 * i));
  return p;
}

// ArrayValue{values = 1: AnyValue{string = 1}}: its body's size.
size_t ArraySize(const std::vector<std::string>& list) {
  size_t n = 0;
  for (const std::string& item : list) n += LenField(LenField(item.size()));
  return n;
}

// AnyValue{string 1 | bool 2 | int 3 | array 5}: its body's size. A
// oneof member is written even when it is empty or zero.
size_t AnySize(const trace::AttributeValue& value) {
  if (const auto* s = std::get_if<std::string>(&value)) {
    return LenField(s->size());
  } else if (const auto* t = std::get_if<trace::StaticText>(&value)) {
    return LenField(t->view().size());
  } else if (const auto* i = std::get_if<int64_t>(&value)) {
    return 1 + VarintSize(static_cast<uint64_t>(*i));
  } else if (std::holds_alternative<bool>(value)) {
    return 2;
  } else if (const auto* list =
                 std::get_if<std::vector<std::string>>(&value)) {
    return LenField(ArraySize(*list));
  }
  return 0;
}

char* PutAny(char* p, const trace::AttributeValue& value) {
  if (const auto* s = std::get_if<std::string>(&value)) {
    return PutBytes(p, 1, *s);
  } else if (const auto* t = std::get_if<trace::StaticText>(&value)) {
    return PutBytes(p, 1, t->view());
  } else if (const auto* i = std::get_if<int64_t>(&value)) {
    return PutUint(p, 3, static_cast<uint64_t>(*i));
  } else if (const auto* b = std::get_if<bool>(&value)) {
    return PutUint(p, 2, *b ? 1 : 0);
  } else if (const auto* list =
                 std::get_if<std::vector<std::string>>(&value)) {
    p = PutLen(p, 5, ArraySize(*list));
    for (const std::string& item : *list) {
      p = PutLen(p, 1, LenField(item.size()));
      p = PutBytes(p, 1, item);
    }
  }
  return p;
}

// KeyValue{key = 1, value = 2}: its body's size.
size_t KeyValueSize(absl::string_view key, const trace::AttributeValue& value) {
  return (key.empty() ? 0 : LenField(key.size())) + LenField(AnySize(value));
}

char* PutKeyValue(char* p, int field, absl::string_view key,
                  const trace::AttributeValue& value) {
  p = PutLen(p, field, KeyValueSize(key, value));
  if (!key.empty()) p = PutBytes(p, 1, key);
  p = PutLen(p, 2, AnySize(value));
  return PutAny(p, value);
}

template <size_t N>
bool AllZero(const std::array<uint8_t, N>& id) {
  for (uint8_t b : id) {
    if (b != 0) return false;
  }
  return true;
}

template <size_t N>
absl::string_view View(const std::array<uint8_t, N>& id) {
  return absl::string_view(reinterpret_cast<const char*>(id.data()), N);
}

// Status{message = 2, code = 3}: its body's size.
size_t StatusSize(const trace::SpanData& s) {
  return (s.status_message.empty() ? 0 : LenField(s.status_message.size())) +
         1 + VarintSize(otlp_trace::Status::STATUS_CODE_ERROR);
}

uint64_t Kind(const trace::SpanData& s) {
  return s.server ? otlp_trace::Span::SPAN_KIND_SERVER
                  : otlp_trace::Span::SPAN_KIND_INTERNAL;
}

// Span{trace_id 1, span_id 2, trace_state 3, parent_span_id 4, name 5,
// kind 6, start 7, end 8, attributes 9, status 15}: its body's size.
size_t SpanSize(const trace::SpanData& s) {
  size_t n = LenField(s.trace_id.size()) + LenField(s.span_id.size());
  if (!s.tracestate.empty()) n += LenField(s.tracestate.size());
  if (!AllZero(s.parent_span_id)) n += LenField(s.parent_span_id.size());
  if (!s.Name().empty()) n += LenField(s.Name().size());
  n += 1 + VarintSize(Kind(s));
  if (s.start_unix_nanos != 0) n += 9;
  if (s.end_unix_nanos != 0) n += 9;
  for (const trace::Attribute& a : s.attributes) {
    n += LenField(KeyValueSize(a.key, a.value));
  }
  if (s.error) n += LenField(StatusSize(s));
  return n;
}

char* PutSpan(char* p, const trace::SpanData& s, size_t size) {
  p = PutLen(p, 2, size);
  p = PutBytes(p, 1, View(s.trace_id));
  p = PutBytes(p, 2, View(s.span_id));
  if (!s.tracestate.empty()) p = PutBytes(p, 3, s.tracestate);
  if (!AllZero(s.parent_span_id)) p = PutBytes(p, 4, View(s.parent_span_id));
  if (!s.Name().empty()) p = PutBytes(p, 5, s.Name());
  p = PutUint(p, 6, Kind(s));
  if (s.start_unix_nanos != 0) {
    p = PutFixed64(p, 7, static_cast<uint64_t>(s.start_unix_nanos));
  }
  if (s.end_unix_nanos != 0) {
    p = PutFixed64(p, 8, static_cast<uint64_t>(s.end_unix_nanos));
  }
  for (const trace::Attribute& a : s.attributes) {
    p = PutKeyValue(p, 9, a.key, a.value);
  }
  if (s.error) {
    p = PutLen(p, 15, StatusSize(s));
    if (!s.status_message.empty()) p = PutBytes(p, 2, s.status_message);
    p = PutUint(p, 3, otlp_trace::Status::STATUS_CODE_ERROR);
  }
  return p;
}

}  // namespace

// Resource{attributes = 1}, ScopeSpans{scope = 1: {name = 1}, spans = 2}.
constexpr absl::string_view kScope = "toolgate";

// The resource's attribute values (once per batch, not per span).
struct ResourceValues {
  ResourceValues(const OtlpOptions& options, const std::string& instance_id)
      : version(options.service_version), instance(instance_id) {}
  const trace::AttributeValue service = std::string("toolgate");
  const trace::AttributeValue version;
  const trace::AttributeValue instance;
};

size_t OtlpWriter::Measure(trace::SpanBatch batch,
                           const OtlpOptions& options,
                           const std::string& instance_id) {
  const ResourceValues v(options, instance_id);
  resource_ = LenField(KeyValueSize("service.name", v.service)) +
              LenField(KeyValueSize("service.instance.id", v.instance));
  if (!options.service_version.empty()) {
    resource_ += LenField(KeyValueSize("service.version", v.version));
  }
  scope_ = LenField(LenField(kScope.size()));
  span_sizes_.clear();
  for (const std::vector<trace::SpanData>& spans : batch) {
    for (const trace::SpanData& s : spans) {
      span_sizes_.push_back(SpanSize(s));
      scope_ += LenField(span_sizes_.back());
    }
  }
  // ResourceSpans{resource = 1, scope_spans = 2}, the request's field 1.
  resource_spans_ = LenField(resource_) + LenField(scope_);
  return LenField(resource_spans_);
}

bool OtlpWriter::Write(trace::SpanBatch batch,
                       const OtlpOptions& options,
                       const std::string& instance_id, char* out,
                       size_t size) const {
  size_t n = 0;
  for (const std::vector<trace::SpanData>& spans : batch) n += spans.size();
  if (span_sizes_.size() != n) return false;
  const ResourceValues v(options, instance_id);
  char* p = out;
  p = PutLen(p, 1, resource_spans_);
  p = PutLen(p, 1, resource_);
  p = PutKeyValue(p, 1, "service.name", v.service);
  if (!options.service_version.empty()) {
    p = PutKeyValue(p, 1, "service.version", v.version);
  }
  p = PutKeyValue(p, 1, "service.instance.id", v.instance);
  p = PutLen(p, 2, scope_);
  p = PutLen(p, 1, LenField(kScope.size()));
  p = PutBytes(p, 1, kScope);
  size_t i = 0;
  for (const std::vector<trace::SpanData>& spans : batch) {
    for (const trace::SpanData& s : spans) p = PutSpan(p, s, span_sizes_[i++]);
  }
  // The sizes and the writes read one schema twice; should they ever
  // disagree, the batch is not sent (Export drops and counts it).
  return p == out + size;
}

std::string OtlpWriter::Request(trace::SpanBatch batch,
                                const OtlpOptions& options,
                                const std::string& instance_id) {
  std::string out(Measure(batch, options, instance_id), '\0');
  if (!Write(batch, options, instance_id, &out[0], out.size())) return "";
  return out;
}

ExportTraceServiceRequest ToOtlpRequest(
    trace::SpanBatch batch, const OtlpOptions& options,
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
  for (const std::vector<trace::SpanData>& spans : batch) {
    for (const trace::SpanData& s : spans) ToSpan(s, ss->add_spans());
  }
  return request;
}

std::string EncodeOtlpRequest(trace::SpanBatch batch,
                              const OtlpOptions& options,
                              const std::string& instance_id) {
  OtlpWriter w;
  return w.Request(batch, options, instance_id);
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

absl::Status OtlpExporter::Export(trace::SpanBatch batch) {
  // The request's bytes written straight from the spans: building
  // protobuf messages for thousands of spans a second, then freeing them,
  // cost more than the rest of tracing (bench/README.md "Tracing
  // overhead (issue 27)").
  // Written in place into the slice gRPC sends: no zero fill, no copy.
  const size_t size = writer_.Measure(batch, options_, instance_id_);
  grpc::Slice slice(grpc_slice_malloc(size), grpc::Slice::STEAL_REF);
  if (!writer_.Write(batch, options_, instance_id_,
                     reinterpret_cast<char*>(GRPC_SLICE_START_PTR(slice.c_slice())),
                     size)) {
    return absl::InternalError("OTLP export: request encoding failed");
  }
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
