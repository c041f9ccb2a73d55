// The exporter against a real gRPC TraceService on a free port: what the
// collector receives, and that a dead, slow or refusing collector costs
// the batch (counted by the tracer), never more than the deadline.
#include "server/otlp_exporter.h"

#include <algorithm>
#include <thread>

#include "gtest/gtest.h"

namespace toolgate {
namespace server {
namespace {

namespace collector = opentelemetry::proto::collector::trace::v1;

class Receiver final : public collector::TraceService::Service {
 public:
  grpc::Status Export(grpc::ServerContext*,
                      const collector::ExportTraceServiceRequest* request,
                      collector::ExportTraceServiceResponse* response) override {
    if (sleep_ > absl::ZeroDuration()) absl::SleepFor(sleep_);
    absl::MutexLock lock(&mu_);
    requests_.push_back(*request);
    if (refuse_) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "busy");
    if (reject_ > 0) {
      response->mutable_partial_success()->set_rejected_spans(reject_);
    }
    return grpc::Status::OK;
  }
  std::vector<collector::ExportTraceServiceRequest> requests() {
    absl::MutexLock lock(&mu_);
    return requests_;
  }
  absl::Duration sleep_ = absl::ZeroDuration();
  bool refuse_ = false;
  int reject_ = 0;

 private:
  absl::Mutex mu_;
  std::vector<collector::ExportTraceServiceRequest> requests_;
};

struct Collector {
  Receiver receiver;
  std::unique_ptr<grpc::Server> server;
  int port = 0;
  Collector() {
    grpc::ServerBuilder b;
    b.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    b.RegisterService(&receiver);
    server = b.BuildAndStart();
  }
  std::string endpoint() const { return "127.0.0.1:" + std::to_string(port); }
};

// A batch of one request's spans (the vector must outlive the batch).
trace::SpanBatch One(const std::vector<trace::SpanData>& spans) {
  return trace::SpanBatch(&spans, 1);
}

// The same spans as requests of at most `k` spans each.
std::vector<std::vector<trace::SpanData>> Split(
    const std::vector<trace::SpanData>& spans, size_t k) {
  std::vector<std::vector<trace::SpanData>> out;
  for (size_t i = 0; i < spans.size(); i += k) {
    out.emplace_back(spans.begin() + i,
                     spans.begin() + std::min(spans.size(), i + k));
  }
  return out;
}

std::vector<trace::SpanData> TwoSpans() {
  trace::SpanData root;
  root.trace_id.fill(0xab);
  root.span_id.fill(0x01);
  root.parent_span_id.fill(0x02);
  root.tracestate = "k=v";
  root.name = "toolgate.v1.ToolGate/ValidateToolCall";
  root.server = true;
  root.start_unix_nanos = 1000;
  root.end_unix_nanos = 5000;
  root.attributes = {{"rpc.system", std::string("grpc")},
                     {"toolgate.attempt", int64_t{2}},
                     {"toolgate.violation_codes",
                      std::vector<std::string>{"invalid_arguments"}},
                     {"toolgate.read_only", false},
                     {"rpc.method", trace::StaticText("ValidateToolCall")}};
  root.error = true;
  root.status_message = "boom";
  trace::SpanData child;
  child.trace_id = root.trace_id;
  child.span_id.fill(0x03);
  child.parent_span_id = root.span_id;
  child.name = "schema";
  child.start_unix_nanos = 2000;
  child.end_unix_nanos = 3000;
  return {root, child};
}

TEST(OtlpExporter, TheCollectorGetsOneResourceAndTheSpansAsRecorded) {
  Collector c;
  ASSERT_GT(c.port, 0);
  OtlpOptions o;
  o.endpoint = c.endpoint();
  o.service_version = "1.2.3";
  absl::StatusOr<std::unique_ptr<OtlpExporter>> e = OtlpExporter::Create(o);
  ASSERT_TRUE(e.ok());
  ASSERT_TRUE((*e)->Export(One(TwoSpans())).ok());
  std::vector<collector::ExportTraceServiceRequest> got = c.receiver.requests();
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(got[0].resource_spans_size(), 1);
  const auto& rs = got[0].resource_spans(0);
  EXPECT_EQ(rs.resource().attributes(0).key(), "service.name");
  EXPECT_EQ(rs.resource().attributes(0).value().string_value(), "toolgate");
  EXPECT_EQ(rs.resource().attributes(1).value().string_value(), "1.2.3");
  ASSERT_EQ(rs.scope_spans(0).spans_size(), 2);
  const auto& root = rs.scope_spans(0).spans(0);
  EXPECT_EQ(root.trace_id(), std::string(16, '\xab'));
  EXPECT_EQ(root.parent_span_id(), std::string(8, '\x02'));
  EXPECT_EQ(root.trace_state(), "k=v");
  EXPECT_EQ(root.kind(), opentelemetry::proto::trace::v1::Span::SPAN_KIND_SERVER);
  EXPECT_EQ(root.start_time_unix_nano(), 1000u);
  EXPECT_EQ(root.attributes_size(), 5);
  EXPECT_EQ(root.attributes(1).value().int_value(), 2);
  EXPECT_EQ(root.attributes(4).key(), "rpc.method");  // A StaticText.
  EXPECT_EQ(root.attributes(4).value().string_value(), "ValidateToolCall");
  EXPECT_EQ(root.attributes(2).value().array_value().values(0).string_value(),
            "invalid_arguments");
  EXPECT_EQ(root.status().code(),
            opentelemetry::proto::trace::v1::Status::STATUS_CODE_ERROR);
  const auto& child = rs.scope_spans(0).spans(1);
  EXPECT_EQ(child.parent_span_id(), root.span_id());
  EXPECT_EQ(child.kind(),
            opentelemetry::proto::trace::v1::Span::SPAN_KIND_INTERNAL);
}

TEST(OtlpExporter, DeadSlowRefusingOrRejectingCollectorsFailTheBatchInTime) {
  OtlpOptions o;
  o.timeout = absl::Milliseconds(200);
  {
    o.endpoint = "127.0.0.1:1";  // Nothing listens.
    auto e = OtlpExporter::Create(o);
    const absl::Time start = absl::Now();
    EXPECT_FALSE((*e)->Export(One(TwoSpans())).ok());
    EXPECT_LT(absl::Now() - start, absl::Seconds(2));
  }
  Collector c;
  o.endpoint = c.endpoint();
  auto e = OtlpExporter::Create(o);
  c.receiver.sleep_ = absl::Milliseconds(600);
  const absl::Time start = absl::Now();
  EXPECT_FALSE((*e)->Export(One(TwoSpans())).ok());
  EXPECT_LT(absl::Now() - start, absl::Milliseconds(550));
  c.receiver.sleep_ = absl::ZeroDuration();
  c.receiver.refuse_ = true;
  EXPECT_FALSE((*e)->Export(One(TwoSpans())).ok());
  c.receiver.refuse_ = false;
  c.receiver.reject_ = 1;
  EXPECT_FALSE((*e)->Export(One(TwoSpans())).ok());
  c.receiver.reject_ = 0;
  EXPECT_TRUE((*e)->Export(One(TwoSpans())).ok());
}

// Export writes the request's bytes itself (no messages built): they must
// be exactly protobuf's serialization of ToOtlpRequest, for every shape of
// span and attribute, and stay so when one writer is reused.
TEST(OtlpWriter, WritesExactlyWhatProtobufSerializes) {
  std::vector<std::vector<trace::SpanData>> cases;
  cases.push_back(TwoSpans());
  cases.push_back({});
  {
    trace::SpanData bare;  // No parent, tracestate, name, times or status text.
    bare.trace_id.fill(0x01);
    bare.span_id.fill(0xff);
    bare.error = true;
    cases.push_back({bare});
  }
  {
    trace::SpanData s = TwoSpans()[0];
    s.name = std::string(300, 'n');  // Lengths past one varint byte.
    s.attributes = {
        {"toolgate.stop_reason", std::string()},
        {"toolgate.attempt", int64_t{-1}},
        {"toolgate.attempts_left", int64_t{0}},
        {"toolgate.read_only", true},
        {"toolgate.read_only2", false},
        {"toolgate.tool_names", std::vector<std::string>{}},
        {"toolgate.violation_codes",
         std::vector<std::string>{std::string(200, 'c'), "", "x"}},
        {"", std::string("empty key")},
        {"big", int64_t{1} << 62}};
    s.start_unix_nanos = int64_t{1} << 62;
    s.end_unix_nanos = (int64_t{1} << 62) + 1;
    cases.push_back({s});
  }
  {
    // A stage's span names its stage table's constant (not copied); a
    // static name wins over `name`, and an empty one writes no name.
    std::vector<trace::SpanData> staged = TwoSpans();
    staged[1].static_name = "policy (run kill switch)";
    staged[1].name = "ignored";
    trace::SpanData empty = staged[1];
    empty.static_name = absl::string_view("");
    staged.push_back(empty);
    cases.push_back(std::move(staged));
  }
  {
    std::vector<trace::SpanData> many;  // A full batch.
    for (int i = 0; i < 512; ++i) {
      for (trace::SpanData& s : TwoSpans()) {
        s.span_id[0] = static_cast<uint8_t>(i);
        many.push_back(std::move(s));
      }
    }
    cases.push_back(std::move(many));
  }
  OtlpWriter reused;
  for (const std::string& version : {std::string(), std::string("1.2.3")}) {
    OtlpOptions o;
    o.service_version = version;
    for (size_t i = 0; i < cases.size(); ++i) {
      SCOPED_TRACE(testing::Message() << "case " << i << ", version \""
                                      << version << "\"");
      const std::string want =
          ToOtlpRequest(One(cases[i]), o, "host/42").SerializeAsString();
      EXPECT_EQ(EncodeOtlpRequest(One(cases[i]), o, "host/42"), want);
      EXPECT_EQ(reused.Request(One(cases[i]), o, "host/42"), want);
      // A batch holds one vector per request: the same spans in several
      // make the same bytes.
      for (size_t k : {1, 3}) {
        const auto requests = Split(cases[i], k);
        EXPECT_EQ(reused.Request(requests, o, "host/42"), want) << k;
      }
      // The exporter's form: measured, then written into a raw buffer
      // (guard bytes after it stay untouched).
      const size_t size = reused.Measure(One(cases[i]), o, "host/42");
      ASSERT_EQ(size, want.size());
      std::string buffer(size + 8, '\x5a');
      ASSERT_TRUE(
          reused.Write(One(cases[i]), o, "host/42", &buffer[0], size));
      EXPECT_EQ(buffer.substr(0, size), want);
      EXPECT_EQ(buffer.substr(size), std::string(8, '\x5a'));
    }
  }
}

TEST(OtlpExporter, NoEndpointIsRefused) {
  EXPECT_FALSE(OtlpExporter::Create(OtlpOptions{}).ok());
}

}  // namespace
}  // namespace server
}  // namespace toolgate
