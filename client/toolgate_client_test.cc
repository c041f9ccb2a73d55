#include "client/toolgate_client.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "client/fake_toolgate.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace client {
namespace {

using testing::ClosedAddress;
using testing::FakeServer;
using testing::FakeToolGate;

v1::ValidateToolCallResponse WithDecision(v1::Decision decision) {
  v1::ValidateToolCallResponse response;
  response.set_decision(decision);
  v1::ToolCall* call = response.add_calls();
  call->set_id("call_1");
  call->set_name("get_weather");
  call->set_arguments_json(R"({"city":"Paris"})");
  return response;
}

struct GateCase {
  std::string name;
  std::function<void(FakeToolGate&)> script;
  bool allowed;
  absl::StatusCode status_code;  // of GateResult::status()
  v1::Decision decision;
  std::string reason_contains;
};

std::vector<GateCase> GateCases() {
  auto reply = [](v1::ValidateToolCallResponse response) {
    return [response](FakeToolGate& fake) {
      fake.Reply("ValidateToolCall", response);
    };
  };
  auto fail = [](grpc::StatusCode code) {
    return [code](FakeToolGate& fake) {
      fake.Fail("ValidateToolCall", grpc::Status(code, "scripted failure"));
    };
  };
  v1::ValidateToolCallResponse nameless = WithDecision(v1::DECISION_ALLOW);
  nameless.mutable_calls(0)->clear_name();
  v1::ValidateToolCallResponse argless = WithDecision(v1::DECISION_ALLOW);
  argless.mutable_calls(0)->clear_arguments_json();
  v1::ValidateToolCallResponse callless = WithDecision(v1::DECISION_ALLOW);
  callless.clear_calls();
  v1::ValidateToolCallResponse stop = WithDecision(v1::DECISION_STOP);
  stop.set_stop_reason("breaker_open");
  const auto ok = absl::StatusCode::kOk;
  return {
      {"Allow", reply(WithDecision(v1::DECISION_ALLOW)), true, ok,
       v1::DECISION_ALLOW, ""},
      {"Reject", reply(WithDecision(v1::DECISION_REJECT)), false, ok,
       v1::DECISION_REJECT, "DECISION_REJECT"},
      {"Stop", reply(stop), false, ok, v1::DECISION_STOP, "breaker_open"},
      {"NeedsApproval", reply(WithDecision(v1::DECISION_NEEDS_APPROVAL)),
       false, ok, v1::DECISION_NEEDS_APPROVAL, "DECISION_NEEDS_APPROVAL"},
      {"Unspecified", reply(WithDecision(v1::DECISION_UNSPECIFIED)), false,
       ok, v1::DECISION_UNSPECIFIED, "DECISION_UNSPECIFIED"},
      {"EmptyResponse", reply(v1::ValidateToolCallResponse()), false, ok,
       v1::DECISION_UNSPECIFIED, "DECISION_UNSPECIFIED"},
      {"AllowWithNamelessCall", reply(nameless), false, ok,
       v1::DECISION_ALLOW, "no name"},
      {"AllowWithoutArguments", reply(argless), false, ok, v1::DECISION_ALLOW,
       "no arguments_json"},
      {"AllowWithNoCalls", reply(callless), false, ok, v1::DECISION_ALLOW,
       "no calls"},
      {"Unavailable", fail(grpc::StatusCode::UNAVAILABLE), false,
       absl::StatusCode::kUnavailable, v1::DECISION_UNSPECIFIED,
       "scripted failure"},
      {"Internal", fail(grpc::StatusCode::INTERNAL), false,
       absl::StatusCode::kInternal, v1::DECISION_UNSPECIFIED,
       "scripted failure"},
      {"InvalidArgument", fail(grpc::StatusCode::INVALID_ARGUMENT), false,
       absl::StatusCode::kInvalidArgument, v1::DECISION_UNSPECIFIED,
       "INVALID_ARGUMENT"},
      {"Unimplemented", [](FakeToolGate&) {}, false,
       absl::StatusCode::kUnimplemented, v1::DECISION_UNSPECIFIED,
       "rpc failed"},
      {"DeadlineExceeded",
       [](FakeToolGate& fake) { fake.Hang("ValidateToolCall"); }, false,
       absl::StatusCode::kDeadlineExceeded, v1::DECISION_UNSPECIFIED,
       "DEADLINE_EXCEEDED"},
  };
}

class CheckToolCallTest : public ::testing::TestWithParam<GateCase> {};

TEST_P(CheckToolCallTest, OnlyAnExplicitWellFormedAllowIsAllowed) {
  const GateCase& c = GetParam();
  FakeServer server;
  c.script(server.service());
  ToolGateClient client(server.NewChannel(),
                        {/*deadline=*/absl::Milliseconds(300)});
  v1::ValidateToolCallRequest request;
  request.set_snapshot_id("sha256:abc");
  request.set_native_json(R"({"tool_calls":[]})");

  GateResult result = client.CheckToolCall(request);

  EXPECT_EQ(result.allowed(), c.allowed);
  EXPECT_EQ(result.status().code(), c.status_code) << result.status();
  EXPECT_EQ(result.decision(), c.decision);
  if (c.allowed) {
    EXPECT_EQ(result.reason(), "");
    EXPECT_EQ(result.response().calls(0).name(), "get_weather");
  } else {
    EXPECT_NE(result.reason().find(c.reason_contains), std::string::npos)
        << result.reason();
  }
  // The server saw exactly what the client sent.
  v1::ValidateToolCallRequest seen;
  ASSERT_TRUE(server.service().LastRequest("ValidateToolCall", &seen));
  EXPECT_EQ(seen.snapshot_id(), "sha256:abc");
  EXPECT_EQ(seen.native_json(), R"({"tool_calls":[]})");
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CheckToolCallTest, ::testing::ValuesIn(GateCases()),
    [](const ::testing::TestParamInfo<GateCase>& info) {
      return info.param.name;
    });

TEST(CheckToolCallTest, ServerNotRunningIsDeniedAsUnavailable) {
  ToolGateClient client(
      grpc::CreateChannel(ClosedAddress(), grpc::InsecureChannelCredentials()),
      {absl::Seconds(2)});
  GateResult result = client.CheckToolCall(v1::ValidateToolCallRequest());
  EXPECT_FALSE(result.allowed());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(result.decision(), v1::DECISION_UNSPECIFIED);
}

TEST(CheckToolCallTest, MissingUnixSocketIsDenied) {
  std::unique_ptr<ToolGateClient> client = ToolGateClient::ForTarget(
      "unix:/nonexistent/toolgate-test.sock", {absl::Seconds(2)});
  GateResult result = client->CheckToolCall(v1::ValidateToolCallRequest());
  EXPECT_FALSE(result.allowed());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnavailable);
}

TEST(GateResultTest, ResponseAttachedToAnErrorIsDiscarded) {
  GateResult result(absl::InternalError("boom"),
                    WithDecision(v1::DECISION_ALLOW));
  EXPECT_FALSE(result.allowed());
  EXPECT_EQ(result.decision(), v1::DECISION_UNSPECIFIED);
  EXPECT_EQ(result.response().calls_size(), 0);
}

TEST(FromGrpcStatusTest, KeepsCanonicalCodeAndMessage) {
  const std::vector<std::pair<grpc::StatusCode, absl::StatusCode>> cases = {
      {grpc::StatusCode::OK, absl::StatusCode::kOk},
      {grpc::StatusCode::CANCELLED, absl::StatusCode::kCancelled},
      {grpc::StatusCode::INVALID_ARGUMENT, absl::StatusCode::kInvalidArgument},
      {grpc::StatusCode::DEADLINE_EXCEEDED,
       absl::StatusCode::kDeadlineExceeded},
      {grpc::StatusCode::NOT_FOUND, absl::StatusCode::kNotFound},
      {grpc::StatusCode::PERMISSION_DENIED,
       absl::StatusCode::kPermissionDenied},
      {grpc::StatusCode::FAILED_PRECONDITION,
       absl::StatusCode::kFailedPrecondition},
      {grpc::StatusCode::UNAVAILABLE, absl::StatusCode::kUnavailable},
      {grpc::StatusCode::UNAUTHENTICATED, absl::StatusCode::kUnauthenticated},
      // Not a canonical code, yet within the enum's range (UBSan).
      {static_cast<grpc::StatusCode>(20), absl::StatusCode::kUnknown},
  };
  for (const auto& [grpc_code, absl_code] : cases) {
    absl::Status status = FromGrpcStatus(grpc::Status(grpc_code, "why"));
    EXPECT_EQ(status.code(), absl_code) << static_cast<int>(grpc_code);
    if (!status.ok()) {
      EXPECT_EQ(status.message(), "why");
    }
  }
}

// The thin methods: every RPC reaches the server and returns its reply or
// its error code unchanged.
TEST(ThinMethodsTest, EachRpcRoundTripsReplyAndError) {
  FakeServer server;
  FakeToolGate& fake = server.service();
  ToolGateClient client(server.NewChannel());

  v1::CreateSnapshotResponse created;
  created.set_snapshot_id("sha256:1");
  created.add_tool_names("search");
  fake.Reply("CreateSnapshot", created);
  v1::OpenRunResponse opened;
  opened.set_run_id("run-1");
  opened.set_run_token("secret");
  fake.Reply("OpenRun", opened);
  fake.Reply("CloseRun", v1::CloseRunResponse());
  fake.Fail("GetSnapshot", grpc::Status(grpc::StatusCode::NOT_FOUND, "nope"));
  fake.Fail("ResetRun",
            grpc::Status(grpc::StatusCode::PERMISSION_DENIED, "bad token"));
  v1::ListSnapshotsResponse listed;
  listed.add_snapshots()->set_snapshot_id("sha256:1");
  fake.Reply("ListSnapshots", listed);

  auto c = client.CreateSnapshot(v1::CreateSnapshotRequest());
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->snapshot_id(), "sha256:1");
  EXPECT_EQ(c->tool_names(0), "search");
  auto o = client.OpenRun(v1::OpenRunRequest());
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->run_token(), "secret");
  EXPECT_TRUE(client.CloseRun(v1::CloseRunRequest()).ok());
  auto l = client.ListSnapshots(v1::ListSnapshotsRequest());
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->snapshots(0).snapshot_id(), "sha256:1");
  EXPECT_EQ(client.GetSnapshot(v1::GetSnapshotRequest()).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(client.ResetRun(v1::ResetRunRequest()).status().code(),
            absl::StatusCode::kPermissionDenied);
}

// Shared shape for the verdict and tool-output helpers: one scripted
// answer, and whether the helper may call it positive.
struct HelperCase {
  std::string name;
  std::function<void(FakeToolGate&)> script;
  bool positive;
  absl::StatusCode status_code;
  std::string reason_contains;
};

std::string HelperCaseName(const ::testing::TestParamInfo<HelperCase>& info) {
  return info.param.name;
}

template <typename Response>
std::function<void(FakeToolGate&)> Replies(const std::string& method,
                                           Response response) {
  return [method, response](FakeToolGate& fake) {
    fake.Reply(method, response);
  };
}

std::function<void(FakeToolGate&)> Fails(const std::string& method,
                                         grpc::StatusCode code) {
  return [method, code](FakeToolGate& fake) {
    fake.Fail(method, grpc::Status(code, "scripted failure"));
  };
}

std::function<void(FakeToolGate&)> Hangs(const std::string& method) {
  return [method](FakeToolGate& fake) { fake.Hang(method); };
}

v1::ExtractVerdictResponse WithOutcome(v1::Outcome outcome,
                                       std::string result_json) {
  v1::ExtractVerdictResponse response;
  response.set_outcome(outcome);
  response.set_result_json(std::move(result_json));
  return response;
}

std::vector<HelperCase> VerdictCases() {
  const std::string m = "ExtractVerdict";
  const std::string block = R"({"reason":"ok","verdict":"pass"})";
  v1::ExtractVerdictResponse stop = WithOutcome(v1::OUTCOME_CONTRACT_STOP, "");
  stop.set_stop_reason("no_result_block");
  const auto ok = absl::StatusCode::kOk;
  return {
      {"Pass", Replies(m, WithOutcome(v1::OUTCOME_PASS, block)), true, ok, ""},
      {"PassWithoutResult", Replies(m, WithOutcome(v1::OUTCOME_PASS, "")),
       false, ok, "no result_json"},
      {"PassWithFailBlock",
       Replies(m, WithOutcome(v1::OUTCOME_PASS, R"({"verdict":"fail"})")),
       false, ok, "verdict is not"},
      {"PassWithUnreadableBlock",
       Replies(m, WithOutcome(v1::OUTCOME_PASS, "{not json")), false, ok,
       "verdict is not"},
      {"Fail", Replies(m, WithOutcome(v1::OUTCOME_FAIL, block)), false, ok,
       "OUTCOME_FAIL"},
      {"Refused", Replies(m, WithOutcome(v1::OUTCOME_REFUSED, block)), false,
       ok, "OUTCOME_REFUSED"},
      {"ContractStop", Replies(m, stop), false, ok, "no_result_block"},
      {"Unspecified", Replies(m, WithOutcome(v1::OUTCOME_UNSPECIFIED, block)),
       false, ok, "OUTCOME_UNSPECIFIED"},
      {"Unavailable", Fails(m, grpc::StatusCode::UNAVAILABLE), false,
       absl::StatusCode::kUnavailable, "scripted failure"},
      {"Deadline", Hangs(m), false, absl::StatusCode::kDeadlineExceeded,
       "DEADLINE_EXCEEDED"},
  };
}

class CheckVerdictTest : public ::testing::TestWithParam<HelperCase> {};

TEST_P(CheckVerdictTest, OnlyPassWithAResultPasses) {
  const HelperCase& c = GetParam();
  FakeServer server;
  c.script(server.service());
  ToolGateClient client(server.NewChannel(), {absl::Milliseconds(300)});
  v1::ExtractVerdictRequest request;
  request.set_envelope("```json\n{}\n```");

  VerdictResult result = client.CheckVerdict(request);

  EXPECT_EQ(result.passed(), c.positive);
  EXPECT_EQ(result.status().code(), c.status_code) << result.status();
  EXPECT_NE(result.reason().find(c.reason_contains), std::string::npos)
      << result.reason();
  if (!result.status().ok()) {
    EXPECT_EQ(result.outcome(), v1::OUTCOME_UNSPECIFIED);
  }
  v1::ExtractVerdictRequest seen;
  ASSERT_TRUE(server.service().LastRequest("ExtractVerdict", &seen));
  EXPECT_EQ(seen.envelope(), "```json\n{}\n```");
}

INSTANTIATE_TEST_SUITE_P(Cases, CheckVerdictTest,
                         ::testing::ValuesIn(VerdictCases()), HelperCaseName);

v1::ValidateToolOutputResponse WithVerdict(v1::OutputVerdict verdict,
                                           std::string safe_mode = "") {
  v1::ValidateToolOutputResponse response;
  response.set_verdict(verdict);
  response.set_safe_mode(std::move(safe_mode));
  return response;
}

std::vector<HelperCase> OutputCases() {
  const std::string m = "ValidateToolOutput";
  const auto ok = absl::StatusCode::kOk;
  return {
      {"Valid", Replies(m, WithVerdict(v1::OUTPUT_VERDICT_VALID)), true, ok,
       ""},
      {"Invalid", Replies(m, WithVerdict(v1::OUTPUT_VERDICT_INVALID)), false,
       ok, "OUTPUT_VERDICT_INVALID"},
      {"InvalidDegraded",
       Replies(m, WithVerdict(v1::OUTPUT_VERDICT_INVALID, "skip_writes")),
       false, ok, "OUTPUT_VERDICT_INVALID"},
      {"Unspecified", Replies(m, WithVerdict(v1::OUTPUT_VERDICT_UNSPECIFIED)),
       false, ok, "OUTPUT_VERDICT_UNSPECIFIED"},
      {"Internal", Fails(m, grpc::StatusCode::INTERNAL), false,
       absl::StatusCode::kInternal, "scripted failure"},
      {"Deadline", Hangs(m), false, absl::StatusCode::kDeadlineExceeded,
       "DEADLINE_EXCEEDED"},
  };
}

class CheckToolOutputTest : public ::testing::TestWithParam<HelperCase> {};

TEST_P(CheckToolOutputTest, OnlyValidIsValid) {
  const HelperCase& c = GetParam();
  FakeServer server;
  c.script(server.service());
  ToolGateClient client(server.NewChannel(), {absl::Milliseconds(300)});
  v1::ValidateToolOutputRequest request;
  request.set_tool_name("search");
  request.set_http_status(200);
  request.set_body(std::string("{\"a\":1}\0", 8));

  ToolOutputResult result = client.CheckToolOutput(request);

  EXPECT_EQ(result.valid(), c.positive);
  EXPECT_EQ(result.status().code(), c.status_code) << result.status();
  EXPECT_NE(result.reason().find(c.reason_contains), std::string::npos)
      << result.reason();
  if (c.name == "InvalidDegraded") {
    EXPECT_EQ(result.response().safe_mode(), "skip_writes");
  }
  v1::ValidateToolOutputRequest seen;
  ASSERT_TRUE(server.service().LastRequest("ValidateToolOutput", &seen));
  EXPECT_EQ(seen.body(), std::string("{\"a\":1}\0", 8));
  EXPECT_EQ(seen.http_status(), 200);
}

INSTANTIATE_TEST_SUITE_P(Cases, CheckToolOutputTest,
                         ::testing::ValuesIn(OutputCases()), HelperCaseName);

}  // namespace
}  // namespace client
}  // namespace toolgate
