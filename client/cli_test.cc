// toolgatectl: every command but validate, usage errors, address
// resolution and chaining commands through --run-file.
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "client/cli.h"
#include "client/cli_test_util.h"
#include "grpcpp/health_check_service_interface.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace client {
namespace {

using testing::CliCase;
using testing::CliCaseName;
using testing::ClosedAddress;
using testing::Fail;
using testing::FakeServer;
using testing::FakeToolGate;
using testing::NoCall;
using testing::Reply;
using testing::Sent;
using testing::TmpDir;

class CliTest : public ::testing::TestWithParam<CliCase> {};

TEST_P(CliTest, ExitCodeOutputAndRequest) { testing::RunCliCase(GetParam()); }

std::vector<CliCase> OtherCommandCases() {
  v1::CreateSnapshotResponse created;
  created.set_snapshot_id("sha256:abc");
  created.add_tool_names("search");
  created.set_format(v1::MANIFEST_FORMAT_OPENAI);
  v1::OpenRunResponse opened;
  opened.set_run_id("run-1");
  opened.set_run_token("tok-1");
  v1::ListSnapshotsResponse listed;
  listed.add_snapshots()->set_snapshot_id("sha256:abc");
  v1::ListSnapshotsResponse paged = listed;
  paged.set_next_page_token("t1");
  auto set_health = [](const std::string& service, bool serving) {
    return [service, serving](FakeServer& s) {
      s.server().GetHealthCheckService()->SetServingStatus(service, serving);
    };
  };
  return {
      {.name = "CreateSnapshot",
       .args = {"create-snapshot", "--manifest", "{tmp}/m.json", "--format",
                "openai", "--name", "weather"},
       .script = Reply("CreateSnapshot", created),
       .exit_code = 0,
       .out_has = "\"format\": \"MANIFEST_FORMAT_OPENAI\"",
       .files = {{"m.json", "[{\"type\": \"function\"}]\n"}},
       .check = Sent<v1::CreateSnapshotRequest>(
           "CreateSnapshot",
           [](const v1::CreateSnapshotRequest& r) {
             EXPECT_EQ(r.manifest_json(), "[{\"type\": \"function\"}]\n");
             EXPECT_EQ(r.format(), v1::MANIFEST_FORMAT_OPENAI);
             EXPECT_EQ(r.name(), "weather");
           })},
      {.name = "CreateSnapshotBadFormat",
       .args = {"create-snapshot", "--format", "yaml"},
       .exit_code = 2,
       .err_has = "--format must be auto|toolgate|openai|anthropic|mcp",
       .check = NoCall("CreateSnapshot")},
      {.name = "CreateSnapshotRejected",
       .args = {"create-snapshot", "--manifest", "-"},
       .script = Fail("CreateSnapshot", grpc::StatusCode::INVALID_ARGUMENT),
       .exit_code = 2,
       .err_has = "INVALID_ARGUMENT",
       .stdin_text = "{"},
      {.name = "GetSnapshotByName",
       .args = {"get-snapshot", "--name", "weather"},
       .script = Reply("GetSnapshot", v1::GetSnapshotResponse()),
       .exit_code = 0,
       .out_has = "\"manifest_json\": \"\"",
       .check = Sent<v1::GetSnapshotRequest>(
           "GetSnapshot",
           [](const v1::GetSnapshotRequest& r) {
             EXPECT_EQ(r.name(), "weather");
           })},
      {.name = "GetSnapshotNotFound",
       .args = {"get-snapshot", "--snapshot", "sha256:none"},
       .script = Fail("GetSnapshot", grpc::StatusCode::NOT_FOUND),
       .exit_code = 2,
       .err_has = "NOT_FOUND"},
      {.name = "DeleteSnapshot",
       .args = {"delete-snapshot", "--snapshot", "sha256:abc"},
       .script = Reply("DeleteSnapshot", v1::DeleteSnapshotResponse()),
       .exit_code = 0,
       .check = Sent<v1::DeleteSnapshotRequest>(
           "DeleteSnapshot",
           [](const v1::DeleteSnapshotRequest& r) {
             EXPECT_EQ(r.snapshot_id(), "sha256:abc");
           })},
      {.name = "DeleteSnapshotPinned",
       .args = {"delete-snapshot", "--snapshot", "sha256:abc"},
       .script = Fail("DeleteSnapshot", grpc::StatusCode::FAILED_PRECONDITION),
       .exit_code = 2,
       .err_has = "FAILED_PRECONDITION"},
      {.name = "ApprovalsList",
       .args = {"approvals", "list", "--run", "run_1", "--state", "pending"},
       .script = Reply("ListApprovals", v1::ListApprovalsResponse()),
       .exit_code = 0,
       .check = Sent<v1::ListApprovalsRequest>(
           "ListApprovals",
           [](const v1::ListApprovalsRequest& r) {
             EXPECT_EQ(r.run_id(), "run_1");
             EXPECT_EQ(r.state(), v1::APPROVAL_STATE_PENDING);
           })},
      {.name = "ApprovalsListBadState",
       .args = {"approvals", "list", "--state", "maybe"},
       .exit_code = 2,
       .err_has = "--state must be pending|approved|denied|expired|used"},
      {.name = "ApprovalsDecide",
       .args = {"approvals", "decide", "--approval", "apr_1", "--decision",
                "approve", "--approver", "alice", "--reason", "ok"},
       .script = Reply("DecideApproval", v1::DecideApprovalResponse()),
       .exit_code = 0,
       .check = Sent<v1::DecideApprovalRequest>(
           "DecideApproval",
           [](const v1::DecideApprovalRequest& r) {
             EXPECT_EQ(r.approval_id(), "apr_1");
             EXPECT_TRUE(r.approve());
             EXPECT_EQ(r.approver(), "alice");
             EXPECT_EQ(r.reason(), "ok");
           })},
      {.name = "ApprovalsDecideNeedsADecision",
       .args = {"approvals", "decide", "--approval", "apr_1", "--approver",
                "alice"},
       .exit_code = 2,
       .err_has = "give --decision approve|deny"},
      {.name = "ApprovalsListWithoutTheCredential",
       .args = {"approvals", "list"},
       .script = Fail("ListApprovals", grpc::StatusCode::UNAUTHENTICATED),
       .exit_code = 2,
       .err_has = "approvals need the approver credential: "
                  "--admin_token_file PATH"},
      {.name = "ApprovalsDecideNobodyCanApprove",
       .args = {"approvals", "decide", "--approval", "apr_1", "--decision",
                "approve", "--approver", "alice"},
       .script = Fail("DecideApproval", grpc::StatusCode::PERMISSION_DENIED),
       .exit_code = 2,
       .err_has = "--approver_identities"},
      {.name = "ApprovalsDecideTwice",
       .args = {"approvals", "decide", "--approval", "apr_1", "--decision",
                "deny", "--approver", "alice"},
       .script = Fail("DecideApproval", grpc::StatusCode::FAILED_PRECONDITION),
       .exit_code = 2,
       .err_has = "FAILED_PRECONDITION"},
      {.name = "ListSnapshots",
       .args = {"list-snapshots"},
       .script = Reply("ListSnapshots", listed),
       .exit_code = 0,
       .out_has = "sha256:abc"},
      {.name = "ListSnapshotsOnePageWithPageToken",
       .args = {"list-snapshots", "--page-token", "t0", "--page-size", "5"},
       .script = Reply("ListSnapshots", paged),
       .exit_code = 0,
       .out_has = "\"next_page_token\": \"t1\"",
       .check = Sent<v1::ListSnapshotsRequest>(
           "ListSnapshots",
           [](const v1::ListSnapshotsRequest& r) {
             EXPECT_EQ(r.page_token(), "t0");
             EXPECT_EQ(r.page_size(), 5);
           })},
      // Following pages, a server that repeats a token is an error, not a
      // loop (the fake answers every page with the same token).
      {.name = "ListSnapshotsRepeatedPageTokenIsAnError",
       .args = {"list-snapshots"},
       .script = Reply("ListSnapshots", paged),
       .exit_code = 2,
       .err_has = "next_page_token it had returned before"},
      {.name = "ListSnapshotsBadPageSize",
       .args = {"list-snapshots", "--page-size", "0"},
       .exit_code = 2,
       .err_has = "--page-size must be a positive integer",
       .check = NoCall("ListSnapshots")},
      {.name = "OpenRun",
       .args = {"open-run", "--snapshot", "sha256:abc", "--model", "m1",
                "--context", "user=ann", "--context=team=a=b",
                "--max-rejects", "3", "--kill-switch-threshold", "2",
                "--kill-switch-window", "4"},
       .script = Reply("OpenRun", opened),
       .exit_code = 0,
       .out_has = "\"run_token\": \"tok-1\"",
       .check = Sent<v1::OpenRunRequest>(
           "OpenRun",
           [](const v1::OpenRunRequest& r) {
             EXPECT_EQ(r.snapshot_id(), "sha256:abc");
             EXPECT_EQ(r.model(), "m1");
             EXPECT_EQ(r.context().at("user"), "ann");
             EXPECT_EQ(r.context().at("team"), "a=b");
             EXPECT_EQ(r.max_consecutive_rejects(), 3);
             EXPECT_EQ(r.kill_switch_threshold(), 2);
             EXPECT_EQ(r.kill_switch_window(), 4);
           })},
      {.name = "OpenRunBadContext",
       .args = {"open-run", "--context", "novalue"},
       .exit_code = 2,
       .err_has = "--context must be KEY=VALUE",
       .check = NoCall("OpenRun")},
      {.name = "OpenRunBadMaxRejects",
       .args = {"open-run", "--max-rejects", "-1"},
       .exit_code = 2,
       .err_has = "--max-rejects",
       .check = NoCall("OpenRun")},
      {.name = "CloseRun",
       .args = {"close-run", "--run", "run-1", "--token", "tok-1"},
       .script = Reply("CloseRun", v1::CloseRunResponse()),
       .exit_code = 0,
       .out_has = "{",
       .check = Sent<v1::CloseRunRequest>(
           "CloseRun",
           [](const v1::CloseRunRequest& r) {
             EXPECT_EQ(r.run_id(), "run-1");
             EXPECT_EQ(r.run_token(), "tok-1");
           })},
      {.name = "CloseRunDenied",
       .args = {"close-run", "--run", "run-1", "--token", "wrong"},
       .script = Fail("CloseRun", grpc::StatusCode::PERMISSION_DENIED),
       .exit_code = 2,
       .err_has = "PERMISSION_DENIED"},
      {.name = "ResetRunFromRunFile",
       .args = {"reset-run", "--run-file", "{tmp}/run.json"},
       .script = Reply("ResetRun", v1::ResetRunResponse()),
       .exit_code = 0,
       .files = {{"run.json", R"({"runId":"run-9","runToken":"tok-9"})"}},
       .check = Sent<v1::ResetRunRequest>(
           "ResetRun",
           [](const v1::ResetRunRequest& r) {
             EXPECT_EQ(r.run_id(), "run-9");
             EXPECT_EQ(r.run_token(), "tok-9");
           })},
      {.name = "ResetRunMalformedRunFile",
       .args = {"reset-run", "--run-file", "{tmp}/run.json"},
       .exit_code = 2,
       .err_has = "--run-file",
       .files = {{"run.json", R"({"run_id":"r","run_token":"t",})"}},
       .check = NoCall("ResetRun")},
      {.name = "HealthServing",
       .args = {"health"},
       .exit_code = 0,
       .out_has = "\"status\": \"SERVING\""},
      {.name = "HealthNotServing",
       .args = {"health", "--service", "toolgate.v1.ToolGate"},
       .script = set_health("toolgate.v1.ToolGate", false),
       .exit_code = 1,
       .out_has = "\"status\": \"NOT_SERVING\""},
      {.name = "HealthUnknownService",
       .args = {"health", "--service", "no.such.Service"},
       .exit_code = 2,
       .err_has = "NOT_FOUND"},
      {.name = "HealthServerDown",
       .args = {"--addr={closed}", "health"},
       .exit_code = 2,
       .err_has = "UNAVAILABLE"},
  };
}

INSTANTIATE_TEST_SUITE_P(Commands, CliTest,
                         ::testing::ValuesIn(OtherCommandCases()),
                         CliCaseName);

std::vector<CliCase> UsageCases() {
  return {
      {.name = "NoCommand", .args = {}, .exit_code = 2, .err_has = "usage:"},
      {.name = "UnknownCommand",
       .args = {"frobnicate"},
       .exit_code = 2,
       .err_has = "unknown command \"frobnicate\""},
      {.name = "UnknownFlag",
       .args = {"list-snapshots", "--verbose", "1"},
       .exit_code = 2,
       .err_has = "unknown flag --verbose",
       .check = NoCall("ListSnapshots")},
      {.name = "FlagOfAnotherCommand",
       .args = {"close-run", "--native", "-"},
       .exit_code = 2,
       .err_has = "unknown flag --native",
       .check = NoCall("CloseRun")},
      {.name = "MissingValue",
       .args = {"get-snapshot", "--snapshot"},
       .exit_code = 2,
       .err_has = "--snapshot needs a value",
       .check = NoCall("GetSnapshot")},
      {.name = "RepeatedFlag",
       .args = {"get-snapshot", "--snapshot", "a", "--snapshot", "b"},
       .exit_code = 2,
       .err_has = "given more than once",
       .check = NoCall("GetSnapshot")},
      {.name = "Positional",
       .args = {"get-snapshot", "sha256:abc"},
       .exit_code = 2,
       .err_has = "unexpected argument \"sha256:abc\"",
       .check = NoCall("GetSnapshot")},
      {.name = "UnknownGlobalFlag",
       .args = {"--verbose", "x", "list-snapshots"},
       .exit_code = 2,
       .err_has = "unknown flag --verbose",
       .check = NoCall("ListSnapshots")},
      {.name = "ZeroTimeout",
       .args = {"--timeout", "0", "list-snapshots"},
       .exit_code = 2,
       .err_has = "--timeout must be seconds",
       .check = NoCall("ListSnapshots")},
      {.name = "NonNumericTimeout",
       .args = {"list-snapshots", "--timeout", "soon"},
       .exit_code = 2,
       .err_has = "--timeout must be seconds",
       .check = NoCall("ListSnapshots")},
      {.name = "NanTimeout",
       .args = {"list-snapshots", "--timeout", "nan"},
       .exit_code = 2,
       .err_has = "--timeout must be seconds"},
      {.name = "RequestNotAnObject",
       .args = {"list-snapshots", "--request", "-"},
       .exit_code = 2,
       .err_has = "expected a JSON object",
       .stdin_text = "[]",
       .check = NoCall("ListSnapshots")},
      {.name = "RepeatedGlobalFlag",
       .args = {"--addr", "{addr}", "--addr", "{addr}", "list-snapshots"},
       .exit_code = 2,
       .err_has = "--addr given more than once",
       .check = NoCall("ListSnapshots")},
      {.name = "LaterAddrWins",
       .args = {"--addr", "{closed}", "list-snapshots", "--addr", "{addr}"},
       .script = Reply("ListSnapshots", v1::ListSnapshotsResponse()),
       .exit_code = 0,
       .out_has = "\"snapshots\": []"},
      {.name = "Help", .args = {"help"}, .exit_code = 0, .out_has = "validate"},
      {.name = "UnreadableAdminTokenFile",
       .args = {"--admin_token_file", "{tmp}/missing", "create-snapshot",
                "--manifest", "-"},
       .exit_code = 2,
       .err_has = "/missing: cannot read",
       .stdin_text = "[]",
       .check = NoCall("CreateSnapshot")},
      {.name = "EmptyAdminTokenFile",
       .args = {"create-snapshot", "--admin_token_file", "{tmp}/token",
                "--manifest", "-"},
       .exit_code = 2,
       .err_has = "is empty",
       .stdin_text = "[]",
       .files = {{"token", "\n"}},
       .check = NoCall("CreateSnapshot")},
  };
}

INSTANTIATE_TEST_SUITE_P(Usage, CliTest, ::testing::ValuesIn(UsageCases()),
                         CliCaseName);

// mcp-proxy: everything that is wrong with its command line is found
// before a server is started or a sidecar asked.
std::vector<CliCase> McpProxyCases() {
  return {
      {.name = "McpProxyWithoutCommand",
       .args = {"mcp-proxy", "--tenant", "t"},
       .exit_code = 2,
       .err_has = "missing \"-- COMMAND [ARGS...]\""},
      {.name = "McpProxyDashesOnly",
       .args = {"mcp-proxy", "--"},
       .exit_code = 2,
       .err_has = "missing \"-- COMMAND [ARGS...]\""},
      {.name = "McpProxyZeroAwait",
       .args = {"mcp-proxy", "--await-approval", "0", "--", "true"},
       .exit_code = 2,
       .err_has = "--await-approval must be seconds"},
      {.name = "McpProxyTinyMessages",
       .args = {"mcp-proxy", "--max_message_bytes", "10", "--", "true"},
       .exit_code = 2,
       .err_has = "--max_message_bytes must be 1024 to"},
      {.name = "McpProxyBooleanWithValue",
       .args = {"mcp-proxy", "--hide-refused-tools=yes", "--", "true"},
       .exit_code = 2,
       .err_has = "takes no value"},
      {.name = "McpProxyMisspeltPolicy",
       .args = {"mcp-proxy", "--addr", "{addr}", "--policy", "{tmp}/p.json",
                "--", "true"},
       .exit_code = 2,
       .err_has = "unknown member \"polcy\"",
       .files = {{"p.json", R"({"tools": {"write_file": {"polcy": {}}}})"}},
       .check = NoCall("CreateSnapshot")},
      // Flags after "--" are the server's; the sidecar is checked first.
      {.name = "McpProxyUnreachableSidecar",
       .args = {"mcp-proxy", "--addr", "{closed}", "--accept-tool-changes",
                "--", "server", "--unknown-to-toolgatectl"},
       .exit_code = 2,
       .err_has = "is not serving"},
  };
}

INSTANTIATE_TEST_SUITE_P(McpProxy, CliTest,
                         ::testing::ValuesIn(McpProxyCases()), CliCaseName);

// `schema check` is local: it reaches RunSchemaCheck with the words after
// its name and never dials the server.
std::vector<CliCase> SchemaCheckCases() {
  const std::map<std::string, std::string> schema = {
      {"s.json", R"({"type":"object","required":["a"]})"}};
  return {
      {.name = "SchemaCheckValid",
       .args = {"--addr", "{closed}", "schema", "check", "--schema",
                "{tmp}/s.json"},
       .exit_code = 0,
       .out_has = "\"valid\":true",
       .stdin_text = "{\"a\":1}\n",
       .files = schema},
      {.name = "SchemaCheckInvalid",
       .args = {"schema", "check", "--schema", "{tmp}/s.json"},
       .exit_code = 1,
       .out_has = "\"valid\":false",
       .stdin_text = "{\"a\":1}\n{}\n",
       .files = schema},
      {.name = "SchemaCheckUsage",
       .args = {"schema", "check"},
       .exit_code = 2},
      {.name = "SchemaWithoutCheck",
       .args = {"schema"},
       .exit_code = 2,
       .err_has = "unknown command \"schema\""},
  };
}

INSTANTIATE_TEST_SUITE_P(SchemaCheck, CliTest,
                         ::testing::ValuesIn(SchemaCheckCases()), CliCaseName);

// Which target the CLI dials: --addr, else $TOOLGATE_ADDR, else the default.
TEST(CliAddressTest, FlagThenEnvironmentThenDefault) {
  struct Case {
    const char* env;  // nullptr: unset.
    std::vector<std::string> args;
    std::string dialed;
  };
  const std::vector<Case> cases = {
      {nullptr, {"list-snapshots"}, kDefaultAddress},
      {"", {"list-snapshots"}, kDefaultAddress},
      {"unix:/run/toolgate.sock",
       {"list-snapshots"},
       "unix:/run/toolgate.sock"},
      {"unix:/run/toolgate.sock",
       {"--addr", "10.0.0.1:7", "list-snapshots"},
       "10.0.0.1:7"},
  };
  for (const Case& c : cases) {
    if (c.env == nullptr) {
      unsetenv(kAddressEnvVar);
    } else {
      setenv(kAddressEnvVar, c.env, 1);
    }
    std::string dialed;
    const std::string closed = ClosedAddress();
    ChannelFactory factory =
        [&](const std::string& target,
            const std::shared_ptr<grpc::ChannelCredentials>&) {
      dialed = target;
      // Dial nowhere useful: only the chosen target matters here.
      return grpc::CreateChannel(closed, grpc::InsecureChannelCredentials());
    };
    std::istringstream in;
    std::ostringstream out, err;
    EXPECT_EQ(RunCli(c.args, in, out, err, factory), kExitError);
    EXPECT_EQ(dialed, c.dialed);
  }
  unsetenv(kAddressEnvVar);
}

TEST(CliAddressTest, NullChannelIsAnError) {
  std::istringstream in;
  std::ostringstream out, err;
  EXPECT_EQ(RunCli({"list-snapshots"}, in, out, err,
                   [](const std::string&,
                      const std::shared_ptr<grpc::ChannelCredentials>&) {
                     return nullptr;
                   }),
            kExitError);
  EXPECT_NE(err.str().find("cannot create a channel"), std::string::npos);
}

// What open-run prints is what --run-file reads: a script can chain them.
TEST(CliChainTest, OpenRunOutputFeedsRunFile) {
  FakeServer server;
  v1::OpenRunResponse opened;
  opened.set_run_id("run-42");
  opened.set_run_token("tok-42");
  opened.set_snapshot_id("sha256:abc");
  server.service().Reply("OpenRun", opened);
  server.service().Reply("CloseRun", v1::CloseRunResponse());
  const std::string run_file = TmpDir() + "/chain_run.json";
  std::istringstream in;
  std::ostringstream out, err;
  ASSERT_EQ(RunCli({"--addr", server.address(), "open-run", "--snapshot",
                    "sha256:abc"},
                   in, out, err, DefaultChannelFactory()),
            kExitOk)
      << err.str();
  std::ofstream(run_file) << out.str();

  std::ostringstream out2, err2;
  ASSERT_EQ(RunCli({"--addr", server.address(), "close-run", "--run-file",
                    run_file},
                   in, out2, err2, DefaultChannelFactory()),
            kExitOk)
      << err2.str();
  v1::CloseRunRequest sent;
  ASSERT_TRUE(server.service().LastRequest("CloseRun", &sent));
  EXPECT_EQ(sent.run_id(), "run-42");
  EXPECT_EQ(sent.run_token(), "tok-42");
}

}  // namespace
}  // namespace client
}  // namespace toolgate
