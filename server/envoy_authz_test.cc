// The decision label DecideCheck reports for the metrics
// (toolgate_decisions_total{rpc="ext_authz.Check"}), case by case, with a
// real engine: every kind of Check answer maps to one value of the closed
// list, and the answer itself is the one Check gives without metrics.
#include "server/envoy_authz.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "schemas/embedded_examples.h"
#include "server/envoy_common.h"

namespace toolgate {
namespace server {
namespace {

using envoy::service::auth::v3::CheckRequest;
using envoy::service::auth::v3::CheckResponse;

std::string Example(const std::string& name) {
  for (const EmbeddedManifest& m : EmbeddedExampleManifests()) {
    if (name == m.name) return m.contents;
  }
  ADD_FAILURE() << "no example " << name;
  return "";
}

std::string ToolsCall(const std::string& tool, const std::string& args,
                      int id = 1) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
         R"(,"method":"tools/call","params":{"name":")" + tool +
         R"(","arguments":)" + args + "}}";
}

const char kGoodArgs[] = R"({"priority":"urgent","ticket_id":"TCK-004242"})";
const char kRefundArgs[] =
    R"({"invoice_id":"INV-00000001","amount":{"value":5,"currency":"EUR"},)"
    R"("reason":"duplicate"})";

struct Case {
  std::string name;
  std::string method = "POST";
  std::string body;
  std::string snapshot = "tickets";  // Route setting; "" for none.
  std::string run_id;                // x-toolgate-run-id; "" for none.
  std::string path = "/mcp";         // REST routes: "/tools/<name>".
  std::string want;                  // The decision label.
  bool allowed = false;              // The answer: OK or PERMISSION_DENIED.
  std::vector<std::string> violations;
};

CheckRequest Request(const Case& c) {
  CheckRequest request;
  auto* http = request.mutable_attributes()->mutable_request()->mutable_http();
  http->set_method(c.method);
  http->set_path(c.path);
  (*http->mutable_headers())["content-type"] = "application/json";
  if (!c.run_id.empty())
    (*http->mutable_headers())[std::string(kRunIdHeader)] = c.run_id;
  http->set_raw_body(c.body);
  http->set_size(static_cast<int64_t>(c.body.size()));
  if (c.path != "/mcp") {
    (*request.mutable_attributes()
          ->mutable_context_extensions())[std::string(kToolPathSetting)] =
        "/tools/{name}";
  }
  if (!c.snapshot.empty()) {
    (*request.mutable_attributes()
          ->mutable_context_extensions())[std::string(kSnapshotSetting)] =
        c.snapshot;
  }
  return request;
}

class CheckLabelTest : public testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    for (const char* name : {"tickets", "billing"}) {
      ASSERT_TRUE(
          engine_.CreateSnapshot(Example(name), ManifestFormat::kAuto, name)
              .ok());
    }
  }
  Engine engine_;
  RunGrants grants_;
};

TEST_P(CheckLabelTest, LabelsTheAnswer) {
  const Case& c = GetParam();
  MeshOutcome outcome;
  const CheckResponse counted =
      DecideCheck(&engine_, &grants_, Request(c), CancelToken(), &outcome);
  EXPECT_EQ(outcome.decision, c.want);
  EXPECT_EQ(counted.status().code() == 0, c.allowed) << counted.DebugString();
  EXPECT_THAT(outcome.violations, testing::IsSupersetOf(c.violations));
  const std::vector<std::string> closed =
      ServerMetrics::DecisionNames("ext_authz.Check");
  EXPECT_NE(std::find(closed.begin(), closed.end(), outcome.decision),
            closed.end());
  // Metrics never alter an answer: the same request without them gets the
  // same kind of answer.
  const CheckResponse plain =
      DecideCheck(&engine_, &grants_, Request(c), CancelToken());
  EXPECT_EQ(plain.status().code(), counted.status().code());
  EXPECT_EQ(plain.has_ok_response(), counted.has_ok_response());
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CheckLabelTest,
    testing::ValuesIn(std::vector<Case>{
        {.name = "allowed_call",
         .body = ToolsCall("update_ticket", kGoodArgs),
         .want = "ALLOW",
         .allowed = true},
        {.name = "unknown_tool",
         .body = ToolsCall("no_such_tool", "{}"),
         .want = "REJECT",
         .violations = {"unknown_tool"}},
        {.name = "needs_approval",
         .body = ToolsCall("issue_refund", kRefundArgs),
         .snapshot = "billing",
         .want = "NEEDS_APPROVAL"},
        {.name = "tools_list",
         .body = R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})",
         .want = "PASS_THROUGH",
         .allowed = true},
        {.name = "session_delete",
         .method = "DELETE",
         .want = "PASS_THROUGH",
         .allowed = true},
        {.name = "get_stream", .method = "GET", .want = "DENIED_REQUEST"},
        {.name = "missing_body", .want = "DENIED_REQUEST"},
        {.name = "unreadable_body", .body = "{", .want = "DENIED_REQUEST"},
        {.name = "method_not_allowed",
         .body = R"({"jsonrpc":"2.0","id":3,"method":"sampling/x"})",
         .want = "DENIED_REQUEST"},
        {.name = "no_snapshot",
         .body = ToolsCall("update_ticket", kGoodArgs),
         .snapshot = "",
         .want = "DENIED_REQUEST"},
        {.name = "unknown_run",
         .body = ToolsCall("update_ticket", kGoodArgs),
         .run_id = "run-that-does-not-exist",
         .want = "DENIED_RUN"},
        {.name = "rest_allowed",
         .body = kGoodArgs,
         .path = "/tools/update_ticket",
         .want = "ALLOW",
         .allowed = true},
        {.name = "rest_rejected",
         .body = "{}",
         .path = "/tools/update_ticket",
         .want = "REJECT"},
        {.name = "rest_no_tool_in_path",
         .body = kGoodArgs,
         .path = "/elsewhere",
         .want = "DENIED_REQUEST"},
        {.name = "batch_allowed",
         .body = "[" + ToolsCall("update_ticket", kGoodArgs, 1) +
                 R"(,{"jsonrpc":"2.0","id":2,"method":"tools/list"}])",
         .want = "ALLOW",
         .allowed = true},
        {.name = "batch_first_denied_is_the_label",
         .body = "[" + ToolsCall("no_such_tool", "{}", 1) + "," +
                 ToolsCall("update_ticket", kGoodArgs, 2) + "]",
         .want = "REJECT",
         .violations = {"unknown_tool"}},
        {.name = "batch_denied_message_before_call",
         .body = R"([{"jsonrpc":"2.0","id":1,"method":"sampling/x"},)" +
                 ToolsCall("update_ticket", kGoodArgs, 2) + "]",
         .want = "DENIED_REQUEST"},
    }),
    [](const testing::TestParamInfo<Case>& info) { return info.param.name; });

// A run's breaker: the reject that uses the last attempt opens it (counted
// once), the next call is STOP.
TEST(CheckLabelRunTest, BreakerOpensOnceThenStop) {
  Engine engine;
  RunGrants grants;
  auto snapshot =
      engine.CreateSnapshot(Example("tickets"), ManifestFormat::kAuto, "t");
  ASSERT_TRUE(snapshot.ok());
  RunLimits limits;
  limits.max_consecutive_rejects = 1;
  auto run = engine.OpenRun((*snapshot)->id(), "model", {}, limits);
  ASSERT_TRUE(run.ok()) << run.status();
  auto ask = [&](const std::string& body) {
    Case c{.body = body, .snapshot = ""};
    CheckRequest request = Request(c);
    auto& headers = *request.mutable_attributes()
                         ->mutable_request()
                         ->mutable_http()
                         ->mutable_headers();
    headers[std::string(kRunIdHeader)] = run->run->id();
    headers[std::string(kRunTokenHeader)] = run->token;
    MeshOutcome outcome;
    DecideCheck(&engine, &grants, request, CancelToken(), &outcome);
    EXPECT_EQ(outcome.run_id, run->run->id());
    return outcome;
  };
  const MeshOutcome rejected = ask(ToolsCall("no_such_tool", "{}"));
  EXPECT_EQ(rejected.decision, "REJECT");
  EXPECT_TRUE(rejected.breaker_opened);
  const MeshOutcome stopped = ask(ToolsCall("update_ticket", kGoodArgs));
  EXPECT_EQ(stopped.decision, "STOP");
  EXPECT_FALSE(stopped.breaker_opened);
}

// An engine error (here: the caller has gone, so the engine refuses to
// decide) is a deny labelled ERROR, never an allow, whatever the call.
TEST(CheckLabelErrorTest, EngineErrorIsADenyLabelledError) {
  Engine engine;
  RunGrants grants;
  ASSERT_TRUE(
      engine
          .CreateSnapshot(Example("tickets"), ManifestFormat::kAuto, "tickets")
          .ok());
  const CancelToken gone([] { return true; }, absl::InfiniteFuture(),
                         absl::ZeroDuration());
  for (const std::string& body : {ToolsCall("update_ticket", kGoodArgs),
                                  ToolsCall("no_such_tool", "{}")}) {
    MeshOutcome outcome;
    const CheckResponse response = DecideCheck(
        &engine, &grants, Request(Case{.body = body}), gone, &outcome);
    EXPECT_EQ(outcome.decision, "ERROR") << body;
    EXPECT_NE(response.status().code(), 0) << response.DebugString();
    EXPECT_FALSE(response.has_ok_response()) << body;
  }
}

}  // namespace
}  // namespace server
}  // namespace toolgate
