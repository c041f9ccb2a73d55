// Streamed output through the real server: the golden streams decide as
// expected through unary stream_events and through ValidateToolCallStream
// (events spread over messages), identically to each other and to the
// unary native/text output they assemble to; bad headers and formats are
// INVALID_ARGUMENT; the limits refuse; refused streams trip the breaker;
// the audit names the stream.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/stream/assembler.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/stream/golden_cases.h"
#include "tests/testing/server_process.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace {

using ::testing::HasSubstr;
using testutil::GoldenStream;

v1::StreamFormat ToProto(stream::Format f) {
  switch (f) {
    case stream::Format::kOpenAIChat:
      return v1::STREAM_FORMAT_OPENAI_CHAT;
    case stream::Format::kOpenAIResponses:
      return v1::STREAM_FORMAT_OPENAI_RESPONSES;
    case stream::Format::kAnthropicMessages:
      return v1::STREAM_FORMAT_ANTHROPIC_MESSAGES;
    case stream::Format::kGemini:
      return v1::STREAM_FORMAT_GEMINI;
    default:
      return v1::STREAM_FORMAT_UNSPECIFIED;
  }
}

std::vector<std::string> Codes(const v1::ValidateToolCallResponse& r) {
  std::vector<std::string> codes;
  for (const auto& v : r.violations()) codes.push_back(v.code());
  return codes;
}

// Decision, codes and calls: what must agree between the forms.
void ExpectSameDecision(const v1::ValidateToolCallResponse& a,
                        const v1::ValidateToolCallResponse& b,
                        const std::string& where, bool same_source = true) {
  EXPECT_EQ(a.decision(), b.decision()) << where;
  EXPECT_EQ(Codes(a), Codes(b)) << where;
  ASSERT_EQ(a.calls_size(), b.calls_size()) << where;
  for (int i = 0; i < a.calls_size(); ++i) {
    EXPECT_EQ(a.calls(i).name(), b.calls(i).name()) << where;
    EXPECT_EQ(a.calls(i).id(), b.calls(i).id()) << where;
    EXPECT_EQ(a.calls(i).arguments_json(), b.calls(i).arguments_json())
        << where;
    if (same_source) EXPECT_EQ(a.calls(i).source(), b.calls(i).source());
  }
}

class StreamServer {
 public:
  explicit StreamServer(std::vector<std::string> flags)
      : process_(std::move(flags)) {}
  bool started() const { return process_.started(); }
  std::unique_ptr<v1::ToolGate::Stub> Stub() {
    return v1::ToolGate::NewStub(grpc::CreateChannel(
        process_.address(), grpc::InsecureChannelCredentials()));
  }
  testutil::ServerProcess& process() { return process_; }

 private:
  testutil::ServerProcess process_;
};

class StreamTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const char* tmp = std::getenv("TEST_TMPDIR");
    audit_path_ = new std::string(std::string(tmp ? tmp : "/tmp") +
                                  "/stream_audit.jsonl");
    std::remove(audit_path_->c_str());
    server_ =
        new StreamServer({"--audit_log=" + *audit_path_, "--audit_payloads"});
    ASSERT_TRUE(server_->started());
  }
  static void TearDownTestSuite() {
    EXPECT_EQ(server_->process().Stop(), 0);
    delete server_;
    delete audit_path_;
  }
  void SetUp() override {
    stub_ = server_->Stub();
    grpc::ClientContext ctx;
    v1::CreateSnapshotRequest req;
    req.set_manifest_json(testutil::GoldenManifest());
    req.set_format(v1::MANIFEST_FORMAT_OPENAI);
    v1::CreateSnapshotResponse resp;
    ASSERT_TRUE(stub_->CreateSnapshot(&ctx, req, &resp).ok());
    snapshot_ = resp.snapshot_id();
  }

  grpc::Status Unary(const v1::ValidateToolCallRequest& req,
                     v1::ValidateToolCallResponse* resp) {
    grpc::ClientContext ctx;
    return stub_->ValidateToolCall(&ctx, req, resp);
  }

  v1::ValidateToolCallResponse UnaryStream(stream::Format format,
                                           const std::vector<std::string>& ev,
                                           const std::string& run_id = "",
                                           const std::string& token = "") {
    v1::ValidateToolCallRequest req;
    if (run_id.empty()) req.set_snapshot_id(snapshot_);
    req.set_run_id(run_id);
    req.set_run_token(token);
    req.mutable_stream_events()->set_format(ToProto(format));
    for (const std::string& e : ev) req.mutable_stream_events()->add_events(e);
    v1::ValidateToolCallResponse resp;
    grpc::Status s = Unary(req, &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return resp;
  }

  // Sends `messages` in order on one ValidateToolCallStream.
  grpc::Status Streamed(const std::vector<v1::ToolCallStreamRequest>& messages,
                        v1::ValidateToolCallResponse* resp) {
    grpc::ClientContext ctx;
    auto writer = stub_->ValidateToolCallStream(&ctx, resp);
    for (const auto& m : messages) {
      if (!writer->Write(m)) break;
    }
    writer->WritesDone();
    return writer->Finish();
  }

  // The header, then the events `per_message` at a time.
  std::vector<v1::ToolCallStreamRequest> Messages(
      stream::Format format, const std::vector<std::string>& events,
      size_t per_message, const std::string& run_id = "",
      const std::string& token = "") {
    std::vector<v1::ToolCallStreamRequest> out(1);
    if (run_id.empty()) out[0].set_snapshot_id(snapshot_);
    out[0].set_run_id(run_id);
    out[0].set_run_token(token);
    out[0].set_stream_format(ToProto(format));
    for (size_t i = 0; i < events.size(); ++i) {
      if (i > 0 && i % per_message == 0) out.emplace_back();
      out.back().add_events(events[i]);
    }
    return out;
  }

  v1::OpenRunResponse OpenRun(int max_rejects) {
    grpc::ClientContext ctx;
    v1::OpenRunRequest req;
    req.set_snapshot_id(snapshot_);
    req.set_model("m");
    req.set_max_consecutive_rejects(max_rejects);
    v1::OpenRunResponse resp;
    EXPECT_TRUE(stub_->OpenRun(&ctx, req, &resp).ok());
    return resp;
  }

  static StreamServer* server_;
  static std::string* audit_path_;
  std::unique_ptr<v1::ToolGate::Stub> stub_;
  std::string snapshot_;
};

StreamServer* StreamTest::server_ = nullptr;
std::string* StreamTest::audit_path_ = nullptr;

TEST_F(StreamTest, GoldenStreamsDecideAlikeInBothFormsAndAsUnaryOutput) {
  for (const GoldenStream& c : testutil::LoadGoldenStreams()) {
    const v1::ValidateToolCallResponse unary = UnaryStream(c.format, c.events);
    EXPECT_EQ(v1::Decision_Name(unary.decision()),
              "DECISION_" + c.expected["decision"].get<std::string>())
        << c.name;
    EXPECT_EQ(Codes(unary), c.expected["codes"].get<std::vector<std::string>>())
        << c.name;
    for (const auto& call : unary.calls()) {
      EXPECT_EQ(call.source(), stream::SourceName(c.format)) << c.name;
    }
    for (size_t per : {size_t{1}, size_t{3}, c.events.size() + 1}) {
      v1::ValidateToolCallResponse streamed;
      grpc::Status s = Streamed(Messages(c.format, c.events, per), &streamed);
      ASSERT_TRUE(s.ok()) << c.name << ": " << s.error_message();
      ExpectSameDecision(streamed, unary, c.name);
    }
    // And as the native/text output the stream assembles to.
    auto assembler = stream::Assembler::Create(c.format, stream::Limits());
    for (const std::string& e : c.events) assembler->Add(e);
    const stream::Assembly assembly = assembler->Finish();
    if (!assembly.error.ok()) continue;
    v1::ValidateToolCallRequest whole;
    whole.set_snapshot_id(snapshot_);
    if (assembly.native) {
      whole.set_native_json(assembly.output);
    } else {
      whole.set_text(assembly.output);
    }
    v1::ValidateToolCallResponse direct;
    ASSERT_TRUE(Unary(whole, &direct).ok());
    ExpectSameDecision(unary, direct, c.name, /*same_source=*/false);
  }
}

TEST_F(StreamTest, UnspecifiedFormatIsInvalidArgumentInBothForms) {
  v1::ValidateToolCallRequest req;
  req.set_snapshot_id(snapshot_);
  req.mutable_stream_events()->add_events("{}");
  v1::ValidateToolCallResponse resp;
  grpc::Status s = Unary(req, &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("STREAM_FORMAT_UNSPECIFIED"));

  auto messages = Messages(stream::Format::kOpenAIChat, {"{}"}, 1);
  messages[0].clear_stream_format();
  s = Streamed(messages, &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("stream_format"));
}

TEST_F(StreamTest, AHeaderFieldChangedLaterIsInvalidArgument) {
  struct Change {
    const char* field;
    void (*apply)(v1::ToolCallStreamRequest*);
  };
  const Change changes[] = {
      {"snapshot_id",
       [](v1::ToolCallStreamRequest* m) { m->set_snapshot_id("sha256:x"); }},
      {"run_id", [](v1::ToolCallStreamRequest* m) { m->set_run_id("r"); }},
      {"run_token",
       [](v1::ToolCallStreamRequest* m) { m->set_run_token("t"); }},
      {"approval_id",
       [](v1::ToolCallStreamRequest* m) { m->set_approval_id("a"); }},
      {"repair",
       [](v1::ToolCallStreamRequest* m) {
         m->set_repair(v1::REPAIR_POLICY_SYNTAX_REPAIR);
       }},
      {"stream_format",
       [](v1::ToolCallStreamRequest* m) {
         m->set_stream_format(v1::STREAM_FORMAT_GEMINI);
       }},
  };
  const GoldenStream c = testutil::LoadGoldenStreams()[0];
  for (const Change& change : changes) {
    auto messages = Messages(c.format, c.events, 2);
    ASSERT_GE(messages.size(), 2u);
    change.apply(&messages[1]);
    v1::ValidateToolCallResponse resp;
    grpc::Status s = Streamed(messages, &resp);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << change.field;
    EXPECT_THAT(s.error_message(), HasSubstr(change.field));
  }
  // Repeating the header unchanged is fine.
  auto messages = Messages(c.format, c.events, 2);
  messages[1].set_snapshot_id(snapshot_);
  messages[1].set_stream_format(ToProto(c.format));
  v1::ValidateToolCallResponse resp;
  EXPECT_TRUE(Streamed(messages, &resp).ok());
}

TEST_F(StreamTest, NoMessageIsInvalidArgument) {
  v1::ValidateToolCallResponse resp;
  grpc::Status s = Streamed({}, &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("no message"));
}

TEST_F(StreamTest, RefusedStreamsCountTowardTheBreakerThenStop) {
  const v1::OpenRunResponse run = OpenRun(2);
  const std::vector<std::string> cut = {
      R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"get_time","arguments":"{\"timezone\":"}}]}}]})"};
  v1::ValidateToolCallResponse first = UnaryStream(
      stream::Format::kOpenAIChat, cut, run.run_id(), run.run_token());
  EXPECT_EQ(first.decision(), v1::DECISION_REJECT);
  EXPECT_EQ(first.attempts_left(), 1);
  v1::ValidateToolCallResponse second;
  ASSERT_TRUE(Streamed(Messages(stream::Format::kOpenAIChat, cut, 1,
                                run.run_id(), run.run_token()),
                       &second)
                  .ok());
  EXPECT_EQ(second.decision(), v1::DECISION_REJECT);
  EXPECT_EQ(second.attempts_left(), 0);
  // The breaker is open: even a complete, valid stream is STOPped now.
  const GoldenStream ok = testutil::LoadGoldenStreams()[0];
  v1::ValidateToolCallResponse third;
  ASSERT_TRUE(
      Streamed(Messages(ok.format, ok.events, 2, run.run_id(), run.run_token()),
               &third)
          .ok());
  EXPECT_EQ(third.decision(), v1::DECISION_STOP);
}

TEST_F(StreamTest, TheAuditNamesTheStreamAndRecordsItsEvents) {
  const std::vector<std::string> events = {
      R"({"candidates":[{"content":{"parts":[{"functionCall":{"name":"get_time","args":{"timezone":"UTC"}}}]},"finishReason":"STOP"}]})"};
  v1::ValidateToolCallResponse resp;
  ASSERT_TRUE(
      Streamed(Messages(stream::Format::kGemini, events, 1), &resp).ok());
  ASSERT_EQ(resp.decision(), v1::DECISION_ALLOW);
  std::ifstream in(*audit_path_);
  std::string line, found;
  while (std::getline(in, line)) {
    if (line.find(resp.audit_id()) != std::string::npos) found = line;
  }
  ASSERT_FALSE(found.empty());
  EXPECT_THAT(found, HasSubstr(R"("source":"stream_gemini")"));
  EXPECT_THAT(found, HasSubstr(R"("format":"STREAM_FORMAT_GEMINI")"));
  EXPECT_THAT(found, HasSubstr("finishReason"));
}

// A second server with small limits.
class StreamLimitsTest : public StreamTest {
 protected:
  static void SetUpTestSuite() {
    server_ = new StreamServer(
        {"--max_stream_events=2000", "--max_input_bytes=4000"});
    ASSERT_TRUE(server_->started());
  }
  static void TearDownTestSuite() {
    EXPECT_EQ(server_->process().Stop(), 0);
    delete server_;
  }
};

const std::string kUsage = R"({"usageMetadata":{"totalTokenCount":1}})";

TEST_F(StreamLimitsTest, MoreEventsThanMaxStreamEventsRejectInBothForms) {
  std::vector<std::string> events(2001, kUsage);
  const v1::ValidateToolCallResponse unary =
      UnaryStream(stream::Format::kGemini, events);
  EXPECT_EQ(unary.decision(), v1::DECISION_REJECT);
  EXPECT_EQ(Codes(unary), std::vector<std::string>{"input_too_large"});
  v1::ValidateToolCallResponse streamed;
  ASSERT_TRUE(
      Streamed(Messages(stream::Format::kGemini, events, 100), &streamed).ok());
  ExpectSameDecision(streamed, unary, "2001 events");
  EXPECT_THAT(streamed.violations(0).message(), HasSubstr("2000 events"));
  events.pop_back();  // 2000 events: read (and, with no finish, cut).
  EXPECT_EQ(Codes(UnaryStream(stream::Format::kGemini, events)),
            std::vector<std::string>{"truncated_stream"});
}

TEST_F(StreamLimitsTest, MoreBytesThanTheRequestLimitRejects) {
  // 300 events of ~3,940 bytes: each under --max_input_bytes, together
  // over the request limit (4 x 4000 + 1 MiB), sent 10 to a message.
  const std::string padded =
      R"({"usageMetadata":{"note":")" + std::string(3900, 'x') + R"("}})";
  std::vector<std::string> events(300, padded);
  v1::ValidateToolCallResponse resp;
  ASSERT_TRUE(
      Streamed(Messages(stream::Format::kGemini, events, 10), &resp).ok());
  EXPECT_EQ(resp.decision(), v1::DECISION_REJECT);
  EXPECT_EQ(Codes(resp), std::vector<std::string>{"input_too_large"});
  EXPECT_THAT(resp.violations(0).message(), HasSubstr("bytes"));
}

TEST_F(StreamLimitsTest, AnEventOverMaxInputBytesRejects) {
  const std::string big =
      R"({"usageMetadata":{"note":")" + std::string(4000, 'x') + R"("}})";
  EXPECT_EQ(Codes(UnaryStream(stream::Format::kGemini, {big})),
            std::vector<std::string>{"input_too_large"});
}

}  // namespace
}  // namespace toolgate
