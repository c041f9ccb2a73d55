// ValidateToolCallStream's bounds through the real server (issue 25):
//  - once the decision is fixed (the stream passed a limit, in one message
//    or many; an event is malformed; the provider sent an error) the server
//    answers and ends the call at once: the client gets the decision
//    without half-closing, and its later writes fail;
//  - at most --max_call_streams calls are open at once (RESOURCE_EXHAUSTED
//    past it, before anything is read); a cancelled or answered call frees
//    its slot;
//  - what open streams hold is counted (toolgate_call_stream_held_bytes)
//    and stays within their limits, and goes back to 0 once they end.
#include <chrono>
#include <functional>
#include <map>
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

constexpr int kMaxStreams = 4;
constexpr int kMaxEvents = 1000;
// The events' byte limit at the default --max_input_bytes (200,000):
// 4 x 200,000 + 1 MiB.
constexpr size_t kStreamBytes = 4 * 200000 + (1 << 20);

// An OpenAI chat chunk carrying `n` bytes of text.
std::string TextChunk(size_t n) {
  return R"({"object":"chat.completion.chunk","choices":[{"index":0,)"
         R"("delta":{"content":")" +
         std::string(n, 'x') + R"("}}]})";
}

// A chunk of one byte of text padded to about `n` bytes (an "id" member,
// which the assembler reads past): big events, little content.
std::string PaddedChunk(size_t n) {
  return R"({"id":")" + std::string(n, 'p') +
         R"(","object":"chat.completion.chunk","choices":[{"index":0,)"
         R"("delta":{"content":"x"}}]})";
}

v1::ToolCallStreamRequest Events(const std::vector<std::string>& events) {
  v1::ToolCallStreamRequest m;
  for (const std::string& e : events) m.add_events(e);
  return m;
}

// About 100 KB of valid text chunks: what a client keeps sending.
v1::ToolCallStreamRequest Filler() {
  return Events(std::vector<std::string>(10, TextChunk(10000)));
}

std::vector<std::string> Codes(const v1::ValidateToolCallResponse& r) {
  std::vector<std::string> codes;
  for (const auto& v : r.violations()) codes.push_back(v.code());
  return codes;
}

class CallStreamLimitsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    metrics_port_ = testutil::FreePort();
    server_ = new ServerProcess(
        {"--max_call_streams=" + std::to_string(kMaxStreams),
         "--max_stream_events=" + std::to_string(kMaxEvents),
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
  }

  v1::ToolCallStreamRequest Header() const {
    v1::ToolCallStreamRequest m;
    m.set_snapshot_id(snapshot_);
    m.set_stream_format(v1::STREAM_FORMAT_OPENAI_CHAT);
    return m;
  }

  static double Gauge(const std::string& name) {
    const auto series = testutil::ParseExposition(testutil::HttpGet(
        "http://127.0.0.1:" + std::to_string(metrics_port_) + "/metrics"));
    auto it = series.find(name);
    return it == series.end() ? -1 : it->second;
  }
  static double OpenStreams() { return Gauge("toolgate_call_streams_open"); }
  static double HeldBytes() { return Gauge("toolgate_call_stream_held_bytes"); }

  // Polls until `done`, about ten seconds at most.
  static bool Eventually(const std::function<bool()>& done) {
    for (int i = 0; i < 200; ++i) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  static void Deadline(grpc::ClientContext* ctx) {
    ctx->set_deadline(std::chrono::system_clock::now() +
                      std::chrono::seconds(30));
  }

  static ServerProcess* server_;
  static int metrics_port_;
  std::unique_ptr<v1::ToolGate::Stub> stub_;
  std::string snapshot_;
};

ServerProcess* CallStreamLimitsTest::server_ = nullptr;
int CallStreamLimitsTest::metrics_port_ = 0;

// Each stream's decision is fixed by its first messages; the client then
// keeps sending (up to ~50 MB, 25 times the byte limit) and never
// half-closes. The server must answer and end the call by itself: a write
// fails long before the client is through, and the answer is the decision.
// Before issue 25 the server read on until half-close (3.3 GiB, 22.9
// CPU-seconds in the report): every write went through and the call
// waited for its deadline.
TEST_F(CallStreamLimitsTest, AnsweredAndEndedOnceTheDecisionIsFixed) {
  struct Case {
    std::string name;
    std::function<std::vector<v1::ToolCallStreamRequest>()> first;
    std::string code;
  };
  const std::string big_approval(600000, 'a');
  const Case cases[] = {
      {"bytes over many messages",
       [&] {
         std::vector<v1::ToolCallStreamRequest> m = {Header()};
         for (size_t sent = 0; sent <= kStreamBytes; sent += 100000) {
           m.push_back(Filler());
         }
         return m;
       },
       "input_too_large"},
      {"events over the count in one message",
       [&] {
         v1::ToolCallStreamRequest m = Header();
         for (int i = 0; i <= kMaxEvents; ++i) m.add_events(TextChunk(1));
         return std::vector<v1::ToolCallStreamRequest>{m};
       },
       "input_too_large"},
      {"messages over the count",
       [&] {
         return std::vector<v1::ToolCallStreamRequest>(kMaxEvents + 2,
                                                       Header());
       },
       "input_too_large"},
      {"wire bytes over the cap (a repeated big header)",
       [&] {
         v1::ToolCallStreamRequest m = Header();
         m.set_approval_id(big_approval);
         return std::vector<v1::ToolCallStreamRequest>(
             4 * kStreamBytes / big_approval.size() + 1, m);
       },
       "input_too_large"},
      {"a malformed event",
       [&] {
         v1::ToolCallStreamRequest m = Header();
         m.add_events(TextChunk(5));
         m.add_events("not json");
         return std::vector<v1::ToolCallStreamRequest>{m};
       },
       "malformed_stream"},
      {"a provider error",
       [&] {
         v1::ToolCallStreamRequest m = Header();
         m.add_events(R"({"error":{"message":"overloaded"}})");
         return std::vector<v1::ToolCallStreamRequest>{m};
       },
       "stream_error"},
      {"a length stop",
       [&] {
         v1::ToolCallStreamRequest m = Header();
         m.add_events(
             R"({"object":"chat.completion.chunk","choices":[{"index":0,)"
             R"("delta":{},"finish_reason":"length"}]})");
         return std::vector<v1::ToolCallStreamRequest>{m};
       },
       "truncated_output"},
  };
  for (const Case& c : cases) {
    grpc::ClientContext ctx;
    Deadline(&ctx);
    v1::ValidateToolCallResponse resp;
    auto writer = stub_->ValidateToolCallStream(&ctx, &resp);
    bool open = true;
    for (const auto& m : c.first()) {
      if (!(open = writer->Write(m))) break;
    }
    int more = 0;
    const v1::ToolCallStreamRequest filler = Filler();
    while (open && more < 500 && (open = writer->Write(filler))) ++more;
    EXPECT_FALSE(open) << c.name << ": every write went through";
    const grpc::Status s = writer->Finish();  // No WritesDone: no half-close.
    ASSERT_TRUE(s.ok()) << c.name << ": " << s.error_message();
    EXPECT_EQ(resp.decision(), v1::DECISION_REJECT) << c.name;
    EXPECT_THAT(Codes(resp), ElementsAre(c.code)) << c.name;
  }
  EXPECT_TRUE(Eventually([] { return OpenStreams() == 0; }));
  EXPECT_EQ(HeldBytes(), 0);
}

// A stream that completes within its limits (events near the byte limit)
// is still decided only at half-close: nothing above cut a good stream
// short. Its big events hold little (their text): the count says so.
TEST_F(CallStreamLimitsTest, GoodStreamIsDecidedAtHalfClose) {
  grpc::ClientContext ctx;
  Deadline(&ctx);
  v1::ValidateToolCallResponse resp;
  auto writer = stub_->ValidateToolCallStream(&ctx, &resp);
  ASSERT_TRUE(writer->Write(Header()));
  const v1::ToolCallStreamRequest padded =
      Events(std::vector<std::string>(10, PaddedChunk(10000)));
  size_t sent = 0;
  for (; sent + 200000 < kStreamBytes; sent += padded.ByteSizeLong()) {
    ASSERT_TRUE(writer->Write(padded));
  }
  ASSERT_TRUE(Eventually([] { return OpenStreams() == 1; }));
  EXPECT_LT(HeldBytes(), 100000);  // ~160 bytes of text, and the header.
  ASSERT_TRUE(writer->Write(Events(
      {R"({"object":"chat.completion.chunk","choices":[{"index":0,)"
       R"("delta":{},"finish_reason":"stop"}]})",
       "[DONE]"})));
  ASSERT_TRUE(writer->WritesDone());
  ASSERT_TRUE(writer->Finish().ok());
  EXPECT_EQ(resp.decision(), v1::DECISION_REJECT);  // Text, no call.
  EXPECT_THAT(Codes(resp), ElementsAre("no_tool_call"));
}

// One open stream: a call that has sent its header and waits.
struct OpenStream {
  grpc::ClientContext ctx;
  v1::ValidateToolCallResponse resp;
  std::unique_ptr<grpc::ClientWriter<v1::ToolCallStreamRequest>> writer;
};

TEST_F(CallStreamLimitsTest, OpenStreamsAreCappedAndSlotsComeBack) {
  std::vector<std::unique_ptr<OpenStream>> open;
  for (int i = 0; i < kMaxStreams; ++i) {
    open.push_back(std::make_unique<OpenStream>());
    Deadline(&open.back()->ctx);
    open.back()->writer =
        stub_->ValidateToolCallStream(&open.back()->ctx, &open.back()->resp);
    ASSERT_TRUE(open.back()->writer->Write(Header()));
  }
  ASSERT_TRUE(Eventually([] { return OpenStreams() == kMaxStreams; }));
  // One more is refused before anything it sends is read.
  auto refused = [&] {
    grpc::ClientContext ctx;
    Deadline(&ctx);
    v1::ValidateToolCallResponse resp;
    auto writer = stub_->ValidateToolCallStream(&ctx, &resp);
    writer->Write(Header());
    return writer->Finish();
  };
  grpc::Status s = refused();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(s.error_message(), HasSubstr("--max_call_streams"));
  EXPECT_THAT(s.error_message(),
              HasSubstr("more than " + std::to_string(kMaxStreams)));
  // A cancelled call frees its slot.
  open[0]->ctx.TryCancel();
  EXPECT_EQ(open[0]->writer->Finish().error_code(),
            grpc::StatusCode::CANCELLED);
  ASSERT_TRUE(Eventually([] { return OpenStreams() == kMaxStreams - 1; }));
  // So does one answered: the freed slot serves a whole call.
  {
    grpc::ClientContext ctx;
    Deadline(&ctx);
    v1::ValidateToolCallResponse resp;
    auto writer = stub_->ValidateToolCallStream(&ctx, &resp);
    ASSERT_TRUE(writer->Write(Header()));
    ASSERT_TRUE(writer->WritesDone());
    ASSERT_TRUE(writer->Finish().ok());
    EXPECT_THAT(Codes(resp), ElementsAre("truncated_stream"));
  }
  ASSERT_TRUE(Eventually([] { return OpenStreams() == kMaxStreams - 1; }));
  ASSERT_TRUE(open[1]->writer->WritesDone());
  EXPECT_TRUE(open[1]->writer->Finish().ok());
  ASSERT_TRUE(Eventually([] { return OpenStreams() == kMaxStreams - 2; }));
  for (size_t i = 2; i < open.size(); ++i) open[i]->ctx.TryCancel();
  for (size_t i = 2; i < open.size(); ++i) open[i]->writer->Finish();
  EXPECT_TRUE(Eventually([] { return OpenStreams() == 0; }));
  EXPECT_EQ(HeldBytes(), 0);
}

// Calls whose deadline passes free their slots too, and a call that was
// refused takes none.
TEST_F(CallStreamLimitsTest, ExpiredStreamsFreeTheirSlots) {
  std::vector<std::unique_ptr<OpenStream>> open;
  for (int i = 0; i < kMaxStreams; ++i) {
    open.push_back(std::make_unique<OpenStream>());
    open.back()->ctx.set_deadline(std::chrono::system_clock::now() +
                                  std::chrono::seconds(3));
    open.back()->writer =
        stub_->ValidateToolCallStream(&open.back()->ctx, &open.back()->resp);
    ASSERT_TRUE(open.back()->writer->Write(Header()));
  }
  for (auto& o : open) {
    EXPECT_EQ(o->writer->Finish().error_code(),
              grpc::StatusCode::DEADLINE_EXCEEDED);
  }
  EXPECT_TRUE(Eventually([] { return OpenStreams() == 0; }));
  EXPECT_EQ(HeldBytes(), 0);
  // Every slot is free again: as many whole calls as the cap, at once.
  open.clear();
  for (int i = 0; i < kMaxStreams; ++i) {
    open.push_back(std::make_unique<OpenStream>());
    Deadline(&open.back()->ctx);
    open.back()->writer =
        stub_->ValidateToolCallStream(&open.back()->ctx, &open.back()->resp);
    ASSERT_TRUE(open.back()->writer->Write(Header()));
  }
  for (auto& o : open) {
    ASSERT_TRUE(o->writer->WritesDone());
    const grpc::Status s = o->writer->Finish();
    EXPECT_TRUE(s.ok()) << s.error_message();
    EXPECT_THAT(Codes(o->resp), ElementsAre("truncated_stream"));
  }
  EXPECT_TRUE(Eventually([] { return OpenStreams() == 0; }));
}

// Every slot holds a stream filled to just under its byte limit: what the
// server counts as held is what they carry (their text), within the
// limit each; one more message past the limit answers each and the count
// goes back to 0.
TEST_F(CallStreamLimitsTest, HeldBytesFollowTheStreamsAndStayWithinLimits) {
  std::vector<std::unique_ptr<OpenStream>> open;
  size_t sent = 0;
  for (int i = 0; i < kMaxStreams; ++i) {
    open.push_back(std::make_unique<OpenStream>());
    OpenStream& o = *open.back();
    Deadline(&o.ctx);
    o.writer = stub_->ValidateToolCallStream(&o.ctx, &o.resp);
    ASSERT_TRUE(o.writer->Write(Header()));
    sent = 0;
    for (; sent + 200000 < kStreamBytes; sent += Filler().ByteSizeLong()) {
      ASSERT_TRUE(o.writer->Write(Filler()));
    }
  }
  // The text carried: 10 x 10,000 bytes per filler message.
  const double text = static_cast<double>(sent) / Filler().ByteSizeLong() *
                      100000 * kMaxStreams;
  ASSERT_TRUE(Eventually([&] { return HeldBytes() >= text; }))
      << HeldBytes() << " < " << text;
  EXPECT_LE(HeldBytes(), static_cast<double>(kStreamBytes) * kMaxStreams);
  EXPECT_EQ(OpenStreams(), kMaxStreams);
  for (auto& o : open) {
    bool more = true;
    for (int i = 0; i < 100 && more; ++i) more = o->writer->Write(Filler());
    EXPECT_FALSE(more);
    ASSERT_TRUE(o->writer->Finish().ok());
    EXPECT_THAT(Codes(o->resp), ElementsAre("input_too_large"));
  }
  EXPECT_TRUE(Eventually([] { return OpenStreams() == 0; }));
  EXPECT_EQ(HeldBytes(), 0);
}

}  // namespace
}  // namespace toolgate
