// Operating the real binary: admin roles, snapshot names, signals, drain.
// Each test starts its own server with the flags it needs.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "client/health_check.h"
#include "client/toolgate_client.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/testing/server_process.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace {

using ::testing::HasSubstr;
using testutil::ServerProcess;

std::string TmpDir() {
  const char *t = std::getenv("TEST_TMPDIR");
  return t ? t : "/tmp";
}

std::string Tools(const std::string &name, const std::string &type) {
  return R"([{"type":"function","function":{"name":")" + name +
         R"(","parameters":{"type":"object","properties":{"x":{"type":")" +
         type + R"("}},"required":["x"]}}}])";
}

class Client {
 public:
  explicit Client(const ServerProcess &server)
      : channel_(grpc::CreateChannel(server.address(),
                                     grpc::InsecureChannelCredentials())),
        stub_(v1::ToolGate::NewStub(channel_)) {}

  grpc::Status Create(const std::string &manifest, const std::string &name,
                      const std::string &bearer = "",
                      std::string *id = nullptr) {
    grpc::ClientContext ctx;
    if (!bearer.empty()) ctx.AddMetadata("authorization", "Bearer " + bearer);
    v1::CreateSnapshotRequest req;
    req.set_manifest_json(manifest);
    req.set_name(name);
    v1::CreateSnapshotResponse resp;
    grpc::Status s = stub_->CreateSnapshot(&ctx, req, &resp);
    if (id != nullptr) *id = resp.snapshot_id();
    return s;
  }

  std::string IdOf(const std::string &name) {
    grpc::ClientContext ctx;
    v1::GetSnapshotRequest req;
    req.set_name(name);
    v1::GetSnapshotResponse resp;
    if (!stub_->GetSnapshot(&ctx, req, &resp).ok()) return "";
    return resp.snapshot_id();
  }

  v1::OpenRunResponse Open(const std::string &snapshot) {
    grpc::ClientContext ctx;
    v1::OpenRunRequest req;
    req.set_snapshot_id(snapshot);
    v1::OpenRunResponse resp;
    EXPECT_TRUE(stub_->OpenRun(&ctx, req, &resp).ok());
    return resp;
  }

  // The decision for one call of `tool` with {"x": value} in a run.
  v1::Decision Validate(const v1::OpenRunResponse &run, const std::string &tool,
                        const std::string &value) {
    grpc::ClientContext ctx;
    v1::ValidateToolCallRequest req;
    req.set_run_id(run.run_id());
    req.set_run_token(run.run_token());
    const nlohmann::json call = {
        {"id", "1"},
        {"type", "function"},
        {"function", {{"name", tool}, {"arguments", "{\"x\":" + value + "}"}}}};
    req.set_native_json(
        nlohmann::json{{"role", "assistant"}, {"tool_calls", {call}}}.dump());
    v1::ValidateToolCallResponse resp;
    if (!stub_->ValidateToolCall(&ctx, req, &resp).ok()) {
      return v1::DECISION_UNSPECIFIED;
    }
    return resp.decision();
  }

  bool Serving() {
    auto s = client::CheckHealth(channel_, "", absl::Seconds(5));
    return s.ok() && *s == client::kHealthServing;
  }

 private:
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::ToolGate::Stub> stub_;
};

TEST(AdminRole, TokenRequiredForCreateSnapshotWhenConfigured) {
  const std::string token_file = TmpDir() + "/admin_token";
  std::ofstream(token_file) << "tok-123456\n";
  ServerProcess server({"--admin_token_file=" + token_file});
  ASSERT_TRUE(server.started());
  Client c(server);
  EXPECT_EQ(c.Create(Tools("a", "string"), "").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(c.Create(Tools("a", "string"), "", "tok-12345").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  std::string id;
  ASSERT_TRUE(c.Create(Tools("a", "string"), "", "tok-123456", &id).ok());
  // A run token is never an admin token; runs are the agent role.
  const v1::OpenRunResponse run = c.Open(id);
  EXPECT_EQ(c.Create(Tools("b", "string"), "", run.run_token()).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(c.Validate(run, "a", "\"v\""), v1::DECISION_ALLOW);
}

TEST(AdminRole, ClientLibrarySendsTheTokenOnAdminCalls) {
  const std::string token_file = TmpDir() + "/admin_token_client";
  std::ofstream(token_file) << "tok-abc\n";
  ServerProcess server({"--admin_token_file=" + token_file});
  ASSERT_TRUE(server.started());
  v1::CreateSnapshotRequest req;
  req.set_manifest_json(Tools("a", "string"));
  client::ToolGateClientOptions options;
  EXPECT_EQ(client::ToolGateClient::ForTarget(server.address(), options)
                ->CreateSnapshot(req)
                .status()
                .code(),
            absl::StatusCode::kUnauthenticated);
  options.admin_token = "tok-abc";
  EXPECT_TRUE(client::ToolGateClient::ForTarget(server.address(), options)
                  ->CreateSnapshot(req)
                  .ok());
}

TEST(AdminRole, ApprovalDecisionsAreAdminOnly) {
  const std::string token_file = TmpDir() + "/admin_token_approvals";
  std::ofstream(token_file) << "tok-apr\n";
  ServerProcess server({"--admin_token_file=" + token_file});
  ASSERT_TRUE(server.started());
  auto stub = v1::ToolGate::NewStub(grpc::CreateChannel(
      server.address(), grpc::InsecureChannelCredentials()));
  for (const std::string& token : {"", "tok-ap", "tok-apr"}) {
    grpc::ClientContext list_ctx, decide_ctx;
    if (!token.empty()) {
      list_ctx.AddMetadata("authorization", "Bearer " + token);
      decide_ctx.AddMetadata("authorization", "Bearer " + token);
    }
    v1::ListApprovalsResponse listed;
    grpc::Status list =
        stub->ListApprovals(&list_ctx, v1::ListApprovalsRequest(), &listed);
    v1::DecideApprovalRequest decide;
    decide.set_approval_id("apr_none");
    decide.set_approve(true);
    decide.set_approver("mallory");
    v1::DecideApprovalResponse decided;
    grpc::Status d = stub->DecideApproval(&decide_ctx, decide, &decided);
    if (token == "tok-apr") {
      EXPECT_TRUE(list.ok()) << list.error_message();
      EXPECT_EQ(d.error_code(), grpc::StatusCode::NOT_FOUND);
    } else {
      EXPECT_EQ(list.error_code(), grpc::StatusCode::UNAUTHENTICATED) << token;
      EXPECT_EQ(d.error_code(), grpc::StatusCode::UNAUTHENTICATED) << token;
    }
  }
}

TEST(AdminRole, UnreadableTokenFileFailsStartUp) {
  ServerProcess server({"--admin_token_file=" + TmpDir() + "/no_such_file"});
  EXPECT_FALSE(server.started());
}

TEST(AdminRole, NoCredentialMeansNoAdminOnANonLoopbackListener) {
  ServerProcess server({"--listen=0.0.0.0:0"});
  ASSERT_TRUE(server.started());
  Client c(server);
  grpc::Status s = c.Create(Tools("a", "string"), "");
  EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(s.error_message(), HasSubstr("--admin_token_file"));
  EXPECT_TRUE(c.Serving());  // Anyone still reads health.
}

TEST(AdminRole, SnapshotCreateAnyLetsAgentsRegisterButNotRebind) {
  ServerProcess server({"--listen=0.0.0.0:0", "--snapshot_create=any"});
  ASSERT_TRUE(server.started());
  Client c(server);
  std::string first;
  ASSERT_TRUE(c.Create(Tools("a", "string"), "mine", "", &first).ok());
  grpc::Status s = c.Create(Tools("a", "integer"), "mine");
  EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(c.IdOf("mine"), first);
  s = c.Create(Tools("a", "integer"), "tickets");  // Loaded at start.
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
}

TEST(SnapshotNames, LoadedNameCannotBeHijackedEvenByAdmin) {
  ServerProcess server;
  ASSERT_TRUE(server.started());
  Client c(server);
  const std::string before = c.IdOf("tickets");
  ASSERT_FALSE(before.empty());
  grpc::Status s =
      c.Create(R"([{"name":"update_ticket","input_schema":{}}])", "tickets");
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(s.error_message(), HasSubstr("reload"));
  EXPECT_EQ(c.IdOf("tickets"), before);
}

// Polls until `done` or about five seconds passed.
template <typename Fn>
bool Eventually(Fn done) {
  for (int i = 0; i < 100; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

TEST(Signals, HupReloadsManifestsAndRunsKeepTheirPins) {
  const std::string dir = TmpDir() + "/reload_manifests";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/crm.openai.json") << Tools("lookup", "string");
  ServerProcess server({"--manifests=" + dir});
  ASSERT_TRUE(server.started());
  Client c(server);
  const std::string v1_id = c.IdOf("crm");
  const v1::OpenRunResponse pinned = c.Open(v1_id);
  std::ofstream(dir + "/crm.openai.json") << Tools("lookup", "integer");
  kill(server.pid(), SIGHUP);
  ASSERT_TRUE(Eventually([&] { return c.IdOf("crm") != v1_id; }));
  EXPECT_EQ(c.Validate(pinned, "lookup", "\"v\""), v1::DECISION_ALLOW);
  const v1::OpenRunResponse fresh = c.Open(c.IdOf("crm"));
  EXPECT_EQ(c.Validate(fresh, "lookup", "\"v\""), v1::DECISION_REJECT);
  EXPECT_EQ(c.Validate(fresh, "lookup", "7"), v1::DECISION_ALLOW);
  // A bad file keeps the old version; the server keeps serving.
  const std::string v2_id = c.IdOf("crm");
  std::ofstream(dir + "/crm.openai.json") << "{not json";
  kill(server.pid(), SIGHUP);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_TRUE(c.Serving());
  EXPECT_EQ(c.IdOf("crm"), v2_id);
}

TEST(Signals, OperatorSignalsDoNotKillTheServer) {
  ServerProcess server;
  ASSERT_TRUE(server.started());
  Client c(server);
  for (int sig : {SIGPIPE, SIGUSR1, SIGUSR2, SIGALRM, SIGHUP}) {
    kill(server.pid(), sig);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_TRUE(server.Alive()) << "signal " << sig;
    EXPECT_TRUE(c.Serving()) << "signal " << sig;
  }
  EXPECT_EQ(server.Stop(), 0);
}

TEST(Signals, ClosedAuditPipeIsNotACrash) {
  ServerProcess server({"--audit_log=-"}, /*broken_stderr=*/true);
  ASSERT_TRUE(server.started());
  Client c(server);
  std::string id = c.IdOf("tickets");
  const v1::OpenRunResponse run = c.Open(id);
  for (int i = 0; i < 20; ++i) c.Validate(run, "no_such_tool", "1");
  EXPECT_TRUE(server.Alive());
  EXPECT_TRUE(c.Serving());
  EXPECT_EQ(server.Stop(), 0);
}

TEST(Signals, TermExitsWithinTheGracePeriodWithAnIdleClient) {
  ServerProcess server({"--shutdown_grace_seconds=1"});
  ASSERT_TRUE(server.started());
  Client c(server);
  ASSERT_TRUE(c.Serving());  // An open, idle connection holds the drain.
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(server.Stop(), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

// A call the server accepted finishes during the drain, even under load:
// gRPC's synchronous server cancelled the calls it had queued for a free
// thread as soon as Shutdown began. Only calls sent after the signal may
// be refused (UNAVAILABLE, or CANCELLED when one races the GOAWAY).
// Returns how many calls were in flight at the signal and answered during
// the drain (every call sent before the signal is expected OK).
int TermUnderLoad() {
  ServerProcess server(
      {"--shutdown_grace_seconds=20", "--drain_notice_ms=1000"});
  EXPECT_TRUE(server.started());
  if (!server.started()) return 0;
  // ~1 MB of prose: a few ms of work per call, so that with many callers
  // there is always a backlog when the signal comes.
  std::string envelope;
  while (envelope.size() < (900 << 10)) {
    envelope += "The review looked at every file and found nothing odd.\n";
  }
  envelope += "```json\n{\"verdict\":\"pass\",\"reason\":\"ok\"}\n```\n";
  using Clock = std::chrono::steady_clock;
  struct Call {
    Clock::time_point sent;
    Clock::time_point done;
    grpc::StatusCode code;
    std::string message;
  };
  constexpr int kCallers = 24;
  std::vector<std::vector<Call>> calls(kCallers);
  std::atomic<bool> stop{false};
  std::vector<std::thread> callers;
  for (int i = 0; i < kCallers; ++i) {
    callers.emplace_back([&, i] {
      auto channel = grpc::CreateChannel(server.address(),
                                         grpc::InsecureChannelCredentials());
      auto stub = v1::ToolGate::NewStub(channel);
      v1::ExtractVerdictRequest req;
      req.set_envelope(envelope);
      while (!stop) {
        grpc::ClientContext ctx;
        ctx.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(30));
        v1::ExtractVerdictResponse resp;
        const Clock::time_point sent = Clock::now();
        grpc::Status s = stub->ExtractVerdict(&ctx, req, &resp);
        calls[i].push_back(
            {sent, Clock::now(), s.error_code(), s.error_message()});
        if (s.error_code() == grpc::StatusCode::UNAVAILABLE) return;
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const Clock::time_point signal_sent = Clock::now();
  EXPECT_EQ(server.Stop(), 0);
  stop = true;
  for (std::thread &t : callers) t.join();
  // Loopback delivery of a request takes well under this margin.
  const Clock::time_point accepted_by =
      signal_sent - std::chrono::milliseconds(20);
  int before = 0, answered_in_drain = 0;
  for (const auto &mine : calls) {
    for (const Call &c : mine) {
      // In flight at the signal (seen from here) and answered: evidence
      // that the drain answers calls, whichever side of the margin.
      if (c.sent < signal_sent && c.done > signal_sent &&
          c.code == grpc::StatusCode::OK) {
        ++answered_in_drain;
      }
      if (c.sent >= accepted_by) continue;
      ++before;
      EXPECT_EQ(c.code, grpc::StatusCode::OK)
          << "a call sent "
          << std::chrono::duration_cast<std::chrono::milliseconds>(signal_sent -
                                                                   c.sent)
                 .count()
          << " ms before SIGTERM, answered "
          << std::chrono::duration_cast<std::chrono::milliseconds>(c.done -
                                                                   signal_sent)
                 .count()
          << " ms after it: " << c.message;
    }
  }
  EXPECT_GE(before, kCallers);  // Every caller had a call out first.
  return answered_in_drain;
}

TEST(Signals, TermUnderLoadFinishesEveryCallSentBeforeIt) {
  // Calls in flight at the signal were answered, not dropped. On a starved
  // machine the signal can fall between calls, which proves nothing: try
  // again (each attempt still checks every call it sent).
  int answered_in_drain = 0;
  for (int attempt = 0; attempt < 3 && answered_in_drain == 0; ++attempt) {
    answered_in_drain = TermUnderLoad();
  }
  EXPECT_GT(answered_in_drain, 0);
}

}  // namespace
}  // namespace toolgate
