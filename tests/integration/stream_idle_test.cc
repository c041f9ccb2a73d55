// --stream_idle_timeout_ms through the real server: ValidateToolCallStream
// calls that send nothing (before their first message or between two)
// cannot hold the --max_call_streams slots forever. An idle call is ended
// DEADLINE_EXCEEDED (no decision) and frees its slot; a call whose pauses
// stay under the timeout is decided as usual, however long it lasts.
// Before the flag, two idle calls with no deadline held both slots for
// good: every later call was RESOURCE_EXHAUSTED.
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/metrics_scrape.h"
#include "tests/testing/server_process.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testutil::ServerProcess;

constexpr int kMaxStreams = 2;
constexpr int kIdleMs = 3000;  // Room for the sanitizer builds to open both.

std::vector<std::string> Codes(const v1::ValidateToolCallResponse& r) {
  std::vector<std::string> codes;
  for (const auto& v : r.violations()) codes.push_back(v.code());
  return codes;
}

struct OpenStream {
  // A deadline far past the server's timeout, so that a server that never
  // ends an idle call fails the test (the message is then gRPC's own).
  grpc::ClientContext ctx;
  v1::ValidateToolCallResponse resp;
  std::unique_ptr<grpc::ClientWriter<v1::ToolCallStreamRequest>> writer;
};

class StreamIdleTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    metrics_port_ = testutil::FreePort();
    server_ = new ServerProcess(
        {"--max_call_streams=" + std::to_string(kMaxStreams),
         "--stream_idle_timeout_ms=" + std::to_string(kIdleMs),
         "--metrics_listen=127.0.0.1:" + std::to_string(metrics_port_)});
    ASSERT_TRUE(server_->started());
  }
  static void TearDownTestSuite() {
    EXPECT_EQ(server_->Stop(), 0);
    delete server_;
  }
  void SetUp() override {
    stub_ = v1::ToolGate::NewStub(grpc::CreateChannel(
        server_->address(), grpc::InsecureChannelCredentials()));
    grpc::ClientContext ctx;
    v1::GetSnapshotRequest req;
    req.set_name("tickets");  // An embedded example.
    v1::GetSnapshotResponse resp;
    ASSERT_TRUE(stub_->GetSnapshot(&ctx, req, &resp).ok());
    snapshot_ = resp.snapshot_id();
    ASSERT_TRUE(Eventually([] { return OpenStreams() == 0; }));
  }

  v1::ToolCallStreamRequest Header() const {
    v1::ToolCallStreamRequest m;
    m.set_snapshot_id(snapshot_);
    m.set_stream_format(v1::STREAM_FORMAT_OPENAI_CHAT);
    return m;
  }
  static v1::ToolCallStreamRequest Event(const std::string& event) {
    v1::ToolCallStreamRequest m;
    m.add_events(event);
    return m;
  }

  std::unique_ptr<OpenStream> Open() {
    auto s = std::make_unique<OpenStream>();
    s->ctx.set_deadline(std::chrono::system_clock::now() +
                        std::chrono::seconds(15));
    s->writer = stub_->ValidateToolCallStream(&s->ctx, &s->resp);
    return s;
  }

  static double OpenStreams() {
    const auto series = testutil::ParseExposition(testutil::HttpGet(
        "http://127.0.0.1:" + std::to_string(metrics_port_) + "/metrics"));
    auto it = series.find("toolgate_call_streams_open");
    return it == series.end() ? -1 : it->second;
  }
  // Polls until `done`, about ten seconds at most.
  static bool Eventually(const std::function<bool()>& done) {
    for (int i = 0; i < 200; ++i) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  static ServerProcess* server_;
  static int metrics_port_;
  std::unique_ptr<v1::ToolGate::Stub> stub_;
  std::string snapshot_;
};

ServerProcess* StreamIdleTest::server_ = nullptr;
int StreamIdleTest::metrics_port_ = 0;

// Two idle calls hold both slots (a third is refused) until the timeout:
// then each ends DEADLINE_EXCEEDED, and a new call is accepted and decided.
TEST_F(StreamIdleTest, IdleStreamsAreEndedAndFreeTheirSlots) {
  struct Case {
    std::string name;
    bool send_header;  // Idle after its first message, or before it.
  };
  for (const Case& c : {Case{"no message at all", false},
                        Case{"idle after the header", true}}) {
    SCOPED_TRACE(c.name);
    ASSERT_TRUE(Eventually([] { return OpenStreams() == 0; }));
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::unique_ptr<OpenStream>> idle;
    for (int i = 0; i < kMaxStreams; ++i) {
      idle.push_back(Open());
      if (c.send_header) {
        ASSERT_TRUE(idle.back()->writer->Write(Header()));
      }
    }
    ASSERT_TRUE(Eventually([] { return OpenStreams() == kMaxStreams; }));
    {
      auto refused = Open();
      refused->writer->Write(Header());
      const grpc::Status s = refused->writer->Finish();
      EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
          << s.error_message();
    }
    for (auto& o : idle) {
      const grpc::Status s = o->writer->Finish();  // Waits for the server.
      EXPECT_EQ(s.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED)
          << s.error_message();
      EXPECT_THAT(s.error_message(), HasSubstr("--stream_idle_timeout_ms"));
      EXPECT_EQ(o->resp.decision(), v1::DECISION_UNSPECIFIED);  // None.
    }
    EXPECT_GE(std::chrono::steady_clock::now() - start,
              std::chrono::milliseconds(kIdleMs));
    EXPECT_TRUE(Eventually([] { return OpenStreams() == 0; }));
    // The slots are free: a whole call is accepted and decided.
    auto next = Open();
    ASSERT_TRUE(next->writer->Write(Header()));
    ASSERT_TRUE(next->writer->WritesDone());
    const grpc::Status s = next->writer->Finish();
    ASSERT_TRUE(s.ok()) << s.error_message();
    EXPECT_EQ(next->resp.decision(), v1::DECISION_REJECT);
    EXPECT_THAT(Codes(next->resp), ElementsAre("truncated_stream"));
  }
}

// A call that pauses under the timeout between its messages, for several
// timeouts in all, is decided as if it had sent them at once: the wait
// restarts with each message.
TEST_F(StreamIdleTest, StreamsPausingUnderTheTimeoutAreDecided) {
  const std::vector<v1::ToolCallStreamRequest> messages = {
      Header(),
      Event(R"({"object":"chat.completion.chunk","choices":[{"index":0,)"
            R"("delta":{"content":"Hel"}}]})"),
      Event(R"({"object":"chat.completion.chunk","choices":[{"index":0,)"
            R"("delta":{"content":"lo"}}]})"),
      Event(R"({"object":"chat.completion.chunk","choices":[{"index":0,)"
            R"("delta":{},"finish_reason":"stop"}]})"),
      Event("[DONE]"),
  };
  auto stream = Open();
  const auto start = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(kIdleMs * 2 / 5));
  for (const auto& m : messages) {
    ASSERT_TRUE(stream->writer->Write(m));
    std::this_thread::sleep_for(std::chrono::milliseconds(kIdleMs * 2 / 5));
  }
  ASSERT_TRUE(stream->writer->WritesDone());
  const grpc::Status s = stream->writer->Finish();
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_GT(std::chrono::steady_clock::now() - start,
            std::chrono::milliseconds(2 * kIdleMs));
  EXPECT_EQ(stream->resp.decision(), v1::DECISION_REJECT);  // Text, no call.
  EXPECT_THAT(Codes(stream->resp), ElementsAre("no_tool_call"));
  EXPECT_TRUE(Eventually([] { return OpenStreams() == 0; }));
}

}  // namespace
}  // namespace toolgate
