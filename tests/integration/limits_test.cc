// Regression tests against the real toolgate binary: each request's work,
// memory and response are bounded, and a request gRPC cannot parse is a
// clear INVALID_ARGUMENT.
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/toolgate_client.h"
#include "gmock/gmock.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/testing/server_fixture.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::SizeIs;
using Json = nlohmann::json;

// A length-delimited protobuf field, built by hand: a client library would
// refuse to serialize invalid UTF-8 in a string field.
std::string Field(int number, const std::string& bytes) {
  std::string out(1, static_cast<char>(number << 3 | 2));
  size_t n = bytes.size();
  do {
    out.push_back(static_cast<char>((n & 0x7f) | (n > 0x7f ? 0x80 : 0)));
    n >>= 7;
  } while (n > 0);
  return out + bytes;
}

// Sends `bytes` as the request of ToolGate/`method`.
grpc::Status RawCall(const std::shared_ptr<grpc::Channel>& channel,
                     const std::string& method, const std::string& bytes) {
  grpc::GenericStub stub(channel);
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  grpc::CompletionQueue cq;
  grpc::Slice slice(bytes);
  grpc::ByteBuffer request(&slice, 1);
  auto call = stub.PrepareUnaryCall(
      &ctx, absl::StrCat("/toolgate.v1.ToolGate/", method), request, &cq);
  call->StartCall();
  grpc::ByteBuffer response;
  grpc::Status status;
  call->Finish(&response, &status, reinterpret_cast<void*>(1));
  void* tag = nullptr;
  bool ok = false;
  EXPECT_TRUE(cq.Next(&tag, &ok));
  cq.Shutdown();
  while (cq.Next(&tag, &ok)) {
  }
  return status;
}

std::string AnthropicCalls(const std::vector<std::string>& names) {
  Json content = Json::array();
  for (size_t i = 0; i < names.size(); ++i) {
    content.push_back({{"type", "tool_use"},
                       {"id", absl::StrCat("t", i)},
                       {"name", names[i]},
                       {"input", Json::object()}});
  }
  return Json{{"role", "assistant"}, {"content", content}}.dump();
}

class LimitsTest : public testutil::ServerFixture {};

TEST_F(LimitsTest, InvalidUtf8InAnyStringFieldIsInvalidArgumentNamingIt) {
  struct Case {
    std::string method;
    std::string bytes;
    std::string field;
  };
  const std::string bad = "\xff\xfe";
  const std::string snapshot = SnapshotNamed("tickets");
  for (const Case& c : std::vector<Case>{
           {"ValidateToolCall", Field(1, snapshot) + Field(4, bad),
            "field text of toolgate.v1.ValidateToolCallRequest"},
           {"CreateSnapshot", Field(1, "[]") + Field(3, bad),
            "field name of toolgate.v1.CreateSnapshotRequest"},
           {"OpenRun",
            Field(1, snapshot) + Field(3, Field(1, "k") + Field(2, bad)),
            "field context[\"k\"] of toolgate.v1.OpenRunRequest"},
           {"ExtractVerdict", Field(4, "ok") + Field(5, bad),
            "field result_schema of"},
           {"ValidateToolOutput", Field(4, bad), "field tool_name of"},
           {"ListSnapshots", Field(2, bad), "field page_token of"},
       }) {
    grpc::Status s = RawCall(channel_, c.method, c.bytes);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << c.method;
    EXPECT_THAT(s.error_message(), HasSubstr(c.field)) << c.method;
    EXPECT_THAT(s.error_message(), HasSubstr("is not valid UTF-8"));
  }
  // Not protobuf at all: still the caller's error, said so.
  grpc::Status s = RawCall(channel_, "GetSnapshot", std::string("\x0a\x7f", 2));
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("not a well-formed"));
  // A well-formed raw request still works.
  v1::GetSnapshotRequest get;
  get.set_name("tickets");
  EXPECT_TRUE(RawCall(channel_, "GetSnapshot", get.SerializeAsString()).ok());
}

TEST_F(LimitsTest, UnknownNamesAndTooManyCallsGiveBoundedResponses) {
  v1::ValidateToolCallRequest req;
  req.set_snapshot_id(SnapshotNamed("tickets"));
  req.set_native_json(AnthropicCalls({std::string(190 * 1024, 'x')}));
  v1::ValidateToolCallResponse resp;
  ASSERT_TRUE(Validate(req, &resp).ok());
  EXPECT_EQ(resp.decision(), v1::DECISION_REJECT);
  ASSERT_THAT(resp.violations(), SizeIs(1));
  EXPECT_EQ(resp.violations(0).code(), "unknown_tool");
  EXPECT_THAT(resp.violations(0).message(), Not(HasSubstr("did you mean")));
  EXPECT_LT(resp.ByteSizeLong(), 8u * 1024);

  std::vector<std::string> names;
  for (int i = 0; i < 2150; ++i) names.push_back(absl::StrCat("nope_", i));
  req.set_native_json(AnthropicCalls(names));
  resp.Clear();
  ASSERT_TRUE(Validate(req, &resp).ok());
  ASSERT_THAT(resp.violations(), SizeIs(1));
  EXPECT_EQ(resp.violations(0).code(), "too_many_calls");
  EXPECT_LT(resp.ByteSizeLong(), 4u * 1024);
}

TEST_F(LimitsTest, OpenRunModelAndContextAreCapped) {
  v1::OpenRunRequest req;
  req.set_snapshot_id(SnapshotNamed("tickets"));
  req.set_model(std::string(257, 'm'));
  grpc::ClientContext ctx;
  v1::OpenRunResponse resp;
  grpc::Status s = stub_->OpenRun(&ctx, req, &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("model is 257 bytes; at most 256"));
  req.set_model("m");
  (*req.mutable_context())["big"] = std::string(1 << 20, 'v');
  grpc::ClientContext ctx2;
  s = stub_->OpenRun(&ctx2, req, &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(),
              HasSubstr("context[\"big\"] is 1048576 bytes"));
}

TEST_F(LimitsTest, ListSnapshotsPagesAndTheClientFollowsThem) {
  for (int i = 0; i < 5; ++i) {
    CreateSnapshot(Json::array({{{"name", absl::StrCat("paged_", i)},
                                 {"input_schema", true}}})
                       .dump());
  }
  std::vector<std::string> paged;
  v1::ListSnapshotsRequest req;
  req.set_page_size(2);
  int pages = 0;
  do {
    grpc::ClientContext ctx;
    v1::ListSnapshotsResponse resp;
    ASSERT_TRUE(stub_->ListSnapshots(&ctx, req, &resp).ok());
    EXPECT_LE(resp.snapshots_size(), 2);
    for (const auto& s : resp.snapshots()) paged.push_back(s.snapshot_id());
    req.set_page_token(resp.next_page_token());
    ++pages;
  } while (!req.page_token().empty() && pages < 100);
  EXPECT_GE(paged.size(), 8u);  // 3 examples + 5 created.
  EXPECT_EQ(pages, static_cast<int>((paged.size() + 1) / 2));
  EXPECT_TRUE(std::is_sorted(paged.begin(), paged.end()));

  client::ToolGateClient client(channel_);
  v1::ListSnapshotsRequest small_pages;
  small_pages.set_page_size(3);
  auto all = client.ListAllSnapshots(small_pages);
  ASSERT_TRUE(all.ok()) << all.status();
  std::vector<std::string> followed;
  for (const auto& s : all->snapshots()) followed.push_back(s.snapshot_id());
  EXPECT_EQ(followed, paged);
  EXPECT_TRUE(all->next_page_token().empty());

  for (const auto& [size, token] : std::vector<std::pair<int, std::string>>{
           {-1, ""}, {10, "not-a-token"}}) {
    v1::ListSnapshotsRequest bad;
    bad.set_page_size(size);
    bad.set_page_token(token);
    grpc::ClientContext ctx;
    v1::ListSnapshotsResponse resp;
    EXPECT_EQ(stub_->ListSnapshots(&ctx, bad, &resp).error_code(),
              grpc::StatusCode::INVALID_ARGUMENT)
        << size << " " << token;
  }
}

TEST_F(LimitsTest, CallsPastTheirDeadlineDoNotCountTowardTheBreaker) {
  v1::OpenRunResponse run = OpenRun(SnapshotNamed("tickets"), 3);
  v1::ValidateToolCallRequest req;
  req.set_run_id(run.run_id());
  req.set_run_token(run.run_token());
  // 64 invalid calls: far more than a millisecond of work.
  Json input = Json::object();
  for (int k = 0; k < 40; ++k) input[absl::StrCat("k", k)] = k;
  Json content = Json::array();
  for (int i = 0; i < 64; ++i) {
    content.push_back({{"type", "tool_use"},
                       {"id", absl::StrCat("t", i)},
                       {"name", "update_ticket"},
                       {"input", input}});
  }
  req.set_native_json(Json{{"role", "assistant"}, {"content", content}}.dump());
  for (int i = 0; i < 5; ++i) {  // More than the breaker's 3.
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::chrono::milliseconds(1));
    v1::ValidateToolCallResponse resp;
    EXPECT_EQ(stub_->ValidateToolCall(&ctx, req, &resp).error_code(),
              grpc::StatusCode::DEADLINE_EXCEEDED);
  }
  // Let the server finish whatever it still did for those calls.
  std::this_thread::sleep_for(std::chrono::seconds(2));
  req.set_native_json(AnthropicCalls({"nope"}));
  v1::ValidateToolCallResponse resp;
  ASSERT_TRUE(Validate(req, &resp).ok());
  EXPECT_EQ(resp.decision(), v1::DECISION_REJECT);
  EXPECT_EQ(resp.attempt(), 1);  // The first reject that counted.
}

std::string TmpPath(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return std::string(tmp ? tmp : "/tmp") + "/" + name;
}

TEST(LimitsServer, AuditLinesEchoBoundedText) {
  const std::string audit = TmpPath("audit.jsonl");
  std::remove(audit.c_str());
  testutil::ServerProcess server({"--audit_log=" + audit});
  ASSERT_TRUE(server.started());
  {  // Clients gone before Stop: an idle connection delays the drain.
    auto channel = grpc::CreateChannel(server.address(),
                                       grpc::InsecureChannelCredentials());
    auto stub = v1::ToolGate::NewStub(channel);
    grpc::ClientContext get_ctx;
    v1::GetSnapshotRequest get;
    get.set_name("tickets");
    v1::GetSnapshotResponse snapshot;
    ASSERT_TRUE(stub->GetSnapshot(&get_ctx, get, &snapshot).ok());
    v1::ValidateToolCallRequest req;
    req.set_snapshot_id(snapshot.snapshot_id());
    req.set_native_json(AnthropicCalls({std::string(190 * 1024, 'x')}));
    grpc::ClientContext ctx;
    v1::ValidateToolCallResponse resp;
    ASSERT_TRUE(stub->ValidateToolCall(&ctx, req, &resp).ok());
    v1::ValidateToolOutputRequest out;
    out.set_snapshot_id(snapshot.snapshot_id());
    out.set_tool_name(std::string(100000, 'y'));
    out.set_http_status(200);
    out.set_content_type("application/json");
    out.set_body("{}");
    grpc::ClientContext out_ctx;
    v1::ValidateToolOutputResponse out_resp;
    ASSERT_TRUE(stub->ValidateToolOutput(&out_ctx, out, &out_resp).ok());
  }
  EXPECT_EQ(server.Stop(), 0);
  std::ifstream in(audit);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    EXPECT_LT(line.size(), 1024u) << line.substr(0, 200);
    const Json record = Json::parse(line);
    for (const auto& tool : record["tools"]) {
      EXPECT_LE(tool.get<std::string>().size(), 128u + 3);
    }
  }
  EXPECT_EQ(lines, 2);
}

TEST(LimitsServer, ResponsesOverTheSendLimitFailInsteadOfGrowing) {
  testutil::ServerProcess server(
      {"--max_input_bytes=3000000", "--max_send_message_bytes=1048576"});
  ASSERT_TRUE(server.started());
  {
    auto channel = grpc::CreateChannel(server.address(),
                                       grpc::InsecureChannelCredentials());
    auto stub = v1::ToolGate::NewStub(channel);
    // A manifest whose canonical form (what GetSnapshot returns) is ~2 MB.
    const std::string manifest =
        Json::array({{{"name", "big"},
                      {"description", std::string(2 << 20, 'd')},
                      {"input_schema", true}}})
            .dump();
    grpc::ClientContext create_ctx;
    v1::CreateSnapshotRequest create;
    create.set_manifest_json(manifest);
    v1::CreateSnapshotResponse created;
    ASSERT_TRUE(stub->CreateSnapshot(&create_ctx, create, &created).ok());
    grpc::ClientContext ctx;
    v1::GetSnapshotRequest get;
    get.set_snapshot_id(created.snapshot_id());
    v1::GetSnapshotResponse resp;
    grpc::Status s = stub->GetSnapshot(&ctx, get, &resp);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
        << s.error_message();
  }
  EXPECT_EQ(server.Stop(), 0);
}

}  // namespace
}  // namespace toolgate
