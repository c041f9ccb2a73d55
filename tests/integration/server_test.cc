// Drives the real toolgate binary over gRPC through the generated stubs.
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "client/health_check.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/testing/server_fixture.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using Json = nlohmann::json;

constexpr char kOpenAITools[] = R"([
 {"type":"function","function":{"name":"create_ticket","description":"Open",
  "parameters":{"type":"object","properties":{
    "title":{"type":"string","minLength":3},
    "priority":{"type":"string","enum":["low","normal","high","urgent"]},
    "count":{"type":"integer"}},
   "required":["title","priority"],"additionalProperties":false}}}])";

class ServerTest : public testutil::ServerFixture {
 protected:
  static std::string Call(const std::string& args) {
    Json msg = {
        {"role", "assistant"},
        {"tool_calls",
         {{{"id", "c1"},
           {"type", "function"},
           {"function", {{"name", "create_ticket"}, {"arguments", args}}}}}}};
    return msg.dump();
  }
};

TEST_F(ServerTest, HealthIsServingWithExamplesLoaded) {
  auto status = client::CheckHealth(channel_, "", absl::Seconds(5));
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(*status, client::kHealthServing);
  grpc::ClientContext ctx;
  v1::ListSnapshotsResponse list;
  ASSERT_TRUE(stub_->ListSnapshots(&ctx, {}, &list).ok());
  std::vector<std::string> names;
  for (const auto& s : list.snapshots()) names.push_back(s.name());
  EXPECT_THAT(names,
              testing::IsSupersetOf({"tickets", "customers", "billing"}));
}

TEST_F(ServerTest, SnapshotsAreContentAddressedAndReadable) {
  const std::string id = CreateSnapshot(kOpenAITools);
  EXPECT_THAT(id, MatchesRegex("sha256:[0-9a-f]{64}"));
  EXPECT_EQ(CreateSnapshot(kOpenAITools, v1::MANIFEST_FORMAT_OPENAI), id);
  grpc::ClientContext ctx;
  v1::GetSnapshotRequest req;
  req.set_snapshot_id(id);
  v1::GetSnapshotResponse resp;
  ASSERT_TRUE(stub_->GetSnapshot(&ctx, req, &resp).ok());
  EXPECT_THAT(resp.tool_names(), testing::ElementsAre("create_ticket"));
  // The canonical manifest yields the same id when submitted again.
  EXPECT_EQ(CreateSnapshot(resp.manifest_json()), id);
}

TEST_F(ServerTest, BadManifestsAreRefusedWithToolAndPointer) {
  struct Case {
    std::string manifest;
    std::string message;
  };
  for (
      const Case& c : std::vector<Case>{
          {R"([{"name":"a","input_schema":{"properties":{"x":{"type":"strin"}}}}])",
           "tool \"a\""},
          {R"([{"name":"a","input_schema":{}},{"name":"a","input_schema":{}}])",
           "duplicate tool name"},
          {R"({"tools":[]})", "cannot detect"}}) {
    grpc::ClientContext ctx;
    v1::CreateSnapshotRequest req;
    req.set_manifest_json(c.manifest);
    v1::CreateSnapshotResponse resp;
    grpc::Status s = stub_->CreateSnapshot(&ctx, req, &resp);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << c.manifest;
    EXPECT_THAT(s.error_message(), HasSubstr(c.message));
  }
}

TEST_F(ServerTest, RunScopedDecisionsThroughGrpc) {
  // Five rejects in a row would open the default breaker; this table is
  // about single decisions.
  v1::OpenRunResponse run = OpenRun(CreateSnapshot(kOpenAITools), 10);
  struct Case {
    std::string native;
    v1::Decision decision;
    std::string code;
    std::string pointer;
  };
  for (const Case& c : std::vector<Case>{
           {Call(R"({"title":"Printer","priority":"high"})"),
            v1::DECISION_ALLOW, "", ""},
           {Call(R"({"title":"Printer"})"), v1::DECISION_REJECT,
            "invalid_arguments", ""},
           {Call(R"({"title":"Printer","priority":"critial"})"),
            v1::DECISION_REJECT, "invalid_arguments", "/priority"},
           {Call(R"({"title":"Printer","priority":"low","count":"3"})"),
            v1::DECISION_REJECT, "invalid_arguments", "/count"},
           {Call(R"({"title":"a","title":"Printer","priority":"low"})"),
            v1::DECISION_REJECT, "duplicate_key", "/title"},
           {Call(""), v1::DECISION_REJECT, "empty_arguments", ""},
           {Call(R"({"title":"Printer","priority":"low"})"), v1::DECISION_ALLOW,
            "", ""}}) {
    v1::ValidateToolCallRequest req;
    req.set_run_id(run.run_id());
    req.set_run_token(run.run_token());
    req.set_native_json(c.native);
    v1::ValidateToolCallResponse resp;
    ASSERT_TRUE(Validate(req, &resp).ok());
    EXPECT_EQ(resp.decision(), c.decision) << c.native;
    if (c.code.empty()) {
      EXPECT_EQ(resp.violations_size(), 0);
      continue;
    }
    ASSERT_GT(resp.violations_size(), 0);
    EXPECT_EQ(resp.violations(0).code(), c.code);
    EXPECT_EQ(resp.violations(0).pointer(), c.pointer);
  }
}

TEST_F(ServerTest, OversizeInputIsADecisionNotATransportError) {
  v1::ValidateToolCallRequest req;
  req.set_snapshot_id(CreateSnapshot(kOpenAITools));
  req.set_native_json(Call(R"({"title":")" + std::string(250000, 'x') +
                           R"(","priority":"low"})"));
  v1::ValidateToolCallResponse resp;
  ASSERT_TRUE(Validate(req, &resp).ok());
  EXPECT_EQ(resp.decision(), v1::DECISION_REJECT);
  EXPECT_EQ(resp.violations(0).code(), "input_too_large");
}

TEST_F(ServerTest, WrongTokenIsRefusedNotStateless) {
  v1::OpenRunResponse run = OpenRun(CreateSnapshot(kOpenAITools), 0);
  v1::ValidateToolCallRequest req;
  req.set_run_id(run.run_id());
  req.set_run_token(run.run_token() + "x");
  req.set_native_json(Call(R"({"title":"Printer","priority":"high"})"));
  v1::ValidateToolCallResponse resp;
  EXPECT_EQ(Validate(req, &resp).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(resp.decision(), v1::DECISION_UNSPECIFIED);
}

TEST_F(ServerTest, BreakerStopsARunUntilResetAndRunsAreIsolated) {
  const std::string snapshot = CreateSnapshot(kOpenAITools);
  v1::OpenRunResponse a = OpenRun(snapshot, 2);
  v1::OpenRunResponse b = OpenRun(snapshot, 2);
  auto validate = [&](const v1::OpenRunResponse& run, const std::string& args) {
    v1::ValidateToolCallRequest req;
    req.set_run_id(run.run_id());
    req.set_run_token(run.run_token());
    req.set_native_json(Call(args));
    v1::ValidateToolCallResponse resp;
    EXPECT_TRUE(Validate(req, &resp).ok());
    return resp;
  };
  const std::string bad = R"({"title":"x"})";
  const std::string good = R"({"title":"Printer","priority":"low"})";
  EXPECT_EQ(validate(a, bad).attempts_left(), 1);
  v1::ValidateToolCallResponse last = validate(a, bad);
  EXPECT_EQ(last.attempt(), 2);
  EXPECT_EQ(last.attempts_left(), 0);
  v1::ValidateToolCallResponse stopped = validate(a, good);
  EXPECT_EQ(stopped.decision(), v1::DECISION_STOP);
  EXPECT_EQ(stopped.stop_reason(), "misformat_circuit_open");
  EXPECT_EQ(validate(b, good).decision(), v1::DECISION_ALLOW);
  grpc::ClientContext ctx;
  v1::ResetRunRequest reset;
  reset.set_run_id(a.run_id());
  reset.set_run_token(a.run_token());
  v1::ResetRunResponse reset_resp;
  ASSERT_TRUE(stub_->ResetRun(&ctx, reset, &reset_resp).ok());
  EXPECT_EQ(validate(a, good).decision(), v1::DECISION_ALLOW);
}

TEST_F(ServerTest, ClosedRunsAreRefused) {
  v1::OpenRunResponse run = OpenRun(CreateSnapshot(kOpenAITools), 0);
  grpc::ClientContext ctx;
  v1::CloseRunRequest close;
  close.set_run_id(run.run_id());
  close.set_run_token(run.run_token());
  v1::CloseRunResponse close_resp;
  ASSERT_TRUE(stub_->CloseRun(&ctx, close, &close_resp).ok());
  v1::ValidateToolCallRequest req;
  req.set_run_id(run.run_id());
  req.set_run_token(run.run_token());
  req.set_native_json(Call(R"({"title":"Printer","priority":"high"})"));
  v1::ValidateToolCallResponse resp;
  EXPECT_EQ(Validate(req, &resp).error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST(AuditLog, OneLinePerDecisionWithoutArgumentValues) {
  const std::string path =
      std::string(std::getenv("TEST_TMPDIR")) + "/audit.jsonl";
  testutil::ServerProcess server({"--audit_log=" + path});
  ASSERT_TRUE(server.started());
  v1::ValidateToolCallResponse resp;
  {
    // Scoped: an idle open connection holds the server's drain on SIGTERM
    // until the grace period ends.
    auto stub = v1::ToolGate::NewStub(grpc::CreateChannel(
        server.address(), grpc::InsecureChannelCredentials()));
    grpc::ClientContext get_ctx;
    v1::GetSnapshotRequest get;
    get.set_name("tickets");
    v1::GetSnapshotResponse snapshot;
    ASSERT_TRUE(stub->GetSnapshot(&get_ctx, get, &snapshot).ok());
    grpc::ClientContext ctx;
    v1::ValidateToolCallRequest req;
    req.set_snapshot_id(snapshot.snapshot_id());
    req.set_native_json(
        R"({"name":"get_ticket","arguments":{"ticket_id":"secret-value"}})");
    ASSERT_TRUE(stub->ValidateToolCall(&ctx, req, &resp).ok());
  }
  EXPECT_EQ(server.Stop(), 0);
  std::ifstream in(path);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  Json record = Json::parse(line);
  EXPECT_EQ(record["audit_id"], resp.audit_id());
  EXPECT_EQ(record["decision"], "REJECT");
  EXPECT_EQ(record["codes"], Json::array({"invalid_arguments"}));
  EXPECT_EQ(record["tools"], Json::array({"get_ticket"}));
  EXPECT_EQ(line.find("secret-value"), std::string::npos);
}

}  // namespace
}  // namespace toolgate
