// The real server with --state_store=redis://...: what each failure of the
// store does (issue 26, "Faults"). Nothing is ever decided without the
// state: a frozen store makes every decision in a run UNAVAILABLE within
// the timeout and the replica not ready (while it stays alive), a
// restarted store (AOF) keeps open runs and pending approvals, a flushed
// one forgets runs (refused, never allowed), and a store that cannot be
// reached as configured stops the server at start-up, naming the flag.
#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "client/health_check.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/metrics_scrape.h"
#include "tests/testing/redis_server.h"
#include "tests/testing/server_process.h"
#include "tests/testing/test_certs.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace {

using ::testing::HasSubstr;
using testutil::RedisServer;
using testutil::RedisServerOptions;
using testutil::ServerProcess;

constexpr char kManifest[] = R"({"toolgate":"v1","tools":[
  {"name":"wire","side_effect":"write","input_schema":{"type":"object"},
   "policy":{"requires_approval":true}},
  {"name":"lookup","side_effect":"read","input_schema":{"type":"object",
   "properties":{"id":{"type":"integer"}},"required":["id"]}}]})";
constexpr char kToken[] = "state-store-test-admin-token";

std::string TempFile(const std::string& name, const std::string& content) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(tmp ? tmp : "/tmp") + "/" + name;
  std::ofstream(path) << content;
  return path;
}

std::string Call(const std::string& tool, const std::string& args) {
  return R"({"name":")" + tool + R"(","arguments":)" + args + "}";
}

// One toolgate on a Redis, and what its tests ask of it.
class StateStoreTest : public testing::Test {
 protected:
  void Start(std::vector<std::string> flags = {}) {
    redis_ = std::make_unique<RedisServer>();
    ASSERT_TRUE(redis_->started());
    health_port_ = testutil::FreeLoopbackPort();
    metrics_port_ = testutil::FreePort();
    flags.insert(flags.end(),
                 {"--state_store=" + redis_->url(),
                  "--state_store_timeout_ms=200", "--snapshot_create=any",
                  "--admin_token_file=" + TempFile("token", kToken),
                  "--health_listen=127.0.0.1:" + std::to_string(health_port_),
                  "--metrics_listen=127.0.0.1:" +
                      std::to_string(metrics_port_)});
    server_ = std::make_unique<ServerProcess>(flags);
    ASSERT_TRUE(server_->started());
    stub_ = v1::ToolGate::NewStub(grpc::CreateChannel(
        server_->address(), grpc::InsecureChannelCredentials()));
    snapshot_ = Snapshot();
    run_ = Open();
  }

  std::string Snapshot() {
    grpc::ClientContext ctx;
    v1::CreateSnapshotRequest req;
    req.set_manifest_json(kManifest);
    v1::CreateSnapshotResponse resp;
    EXPECT_TRUE(stub_->CreateSnapshot(&ctx, req, &resp).ok());
    return resp.snapshot_id();
  }

  v1::OpenRunResponse Open() {
    grpc::ClientContext ctx;
    v1::OpenRunRequest req;
    req.set_snapshot_id(snapshot_);
    req.set_max_consecutive_rejects(5);
    v1::OpenRunResponse resp;
    EXPECT_TRUE(stub_->OpenRun(&ctx, req, &resp).ok());
    return resp;
  }

  grpc::Status Validate(const std::string& native, v1::ValidateToolCallResponse* r,
                        const std::string& approval_id = "") {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    v1::ValidateToolCallRequest req;
    req.set_run_id(run_.run_id());
    req.set_run_token(run_.run_token());
    req.set_native_json(native);
    req.set_approval_id(approval_id);
    return stub_->ValidateToolCall(&ctx, req, r);
  }

  grpc::Status Decide(const std::string& id) {
    grpc::ClientContext ctx;
    ctx.AddMetadata("authorization", std::string("Bearer ") + kToken);
    v1::DecideApprovalRequest req;
    req.set_approval_id(id);
    req.set_approve(true);
    req.set_approver("alice");
    v1::DecideApprovalResponse resp;
    return stub_->DecideApproval(&ctx, req, &resp);
  }

  // grpc.health.v1 status of `service` on the main or the health port.
  int Health(bool health_port, const std::string& service) {
    const std::string address =
        health_port ? "127.0.0.1:" + std::to_string(health_port_)
                    : server_->address();
    auto status = client::CheckHealth(
        grpc::CreateChannel(address, grpc::InsecureChannelCredentials()),
        service, absl::Seconds(2));
    return status.ok() ? *status : -1;
  }

  // Waits up to 5 s for the main port's health to be `want`.
  bool MainHealthBecomes(int want) {
    for (int i = 0; i < 50; ++i) {
      if (Health(false, "") == want) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  std::unique_ptr<RedisServer> redis_;
  std::unique_ptr<ServerProcess> server_;
  std::unique_ptr<v1::ToolGate::Stub> stub_;
  int health_port_ = 0;
  int metrics_port_ = 0;
  std::string snapshot_;
  v1::OpenRunResponse run_;
};

TEST_F(StateStoreTest, FrozenStoreRefusesEveryDecisionAndRecovers) {
  Start();
  v1::ValidateToolCallResponse r;
  ASSERT_TRUE(Validate(Call("lookup", R"({"id":1})"), &r).ok());
  ASSERT_EQ(r.decision(), v1::DECISION_ALLOW);
  redis_->Pause();
  for (const std::string& call :
       {Call("lookup", R"({"id":1})"), Call("lookup", R"({"id":"x"})"),
        Call("wire", "{}")}) {
    const auto start = std::chrono::steady_clock::now();
    grpc::Status s = Validate(call, &r);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAVAILABLE) << call;
    EXPECT_THAT(s.error_message(), HasSubstr("state store"));
    EXPECT_LT(std::chrono::steady_clock::now() - start,
              std::chrono::seconds(2));
  }
  // Not ready (the Service stops sending it calls), still alive.
  EXPECT_TRUE(MainHealthBecomes(client::kHealthNotServing));
  EXPECT_EQ(Health(true, "toolgate.v1.ToolGate"), client::kHealthNotServing);
  EXPECT_EQ(Health(true, ""), client::kHealthServing);
  redis_->Resume();
  EXPECT_TRUE(MainHealthBecomes(client::kHealthServing));
  EXPECT_EQ(Health(true, "toolgate.v1.ToolGate"), client::kHealthServing);
  ASSERT_TRUE(Validate(Call("lookup", R"({"id":1})"), &r).ok());
  EXPECT_EQ(r.decision(), v1::DECISION_ALLOW);
}

TEST_F(StateStoreTest, RestartedStoreKeepsRunsAndPendingApprovals) {
  Start();
  v1::ValidateToolCallResponse r;
  ASSERT_TRUE(Validate(Call("lookup", R"({"id":"x"})"), &r).ok());
  ASSERT_EQ(r.attempt(), 1);
  ASSERT_TRUE(Validate(Call("wire", R"({"to":"a"})"), &r).ok());
  ASSERT_EQ(r.decision(), v1::DECISION_NEEDS_APPROVAL);
  const std::string id = r.approval_id();
  ASSERT_TRUE(redis_->Restart());  // AOF brings everything back.
  ASSERT_TRUE(Validate(Call("wire", R"({"to":"a"})"), &r, id).ok());
  EXPECT_EQ(r.stop_reason(), "approval_pending");
  ASSERT_TRUE(Decide(id).ok());
  ASSERT_TRUE(Validate(Call("wire", R"({"to":"a"})"), &r, id).ok());
  EXPECT_EQ(r.decision(), v1::DECISION_ALLOW);
  ASSERT_TRUE(Validate(Call("wire", R"({"to":"a"})"), &r, id).ok());
  EXPECT_EQ(r.stop_reason(), "approval_used");
}

TEST_F(StateStoreTest, FlushedStoreForgetsRunsAndRefusesThem) {
  Start();
  redis_->Cli({"FLUSHALL"});
  v1::ValidateToolCallResponse r;
  EXPECT_EQ(Validate(Call("lookup", R"({"id":1})"), &r).error_code(),
            grpc::StatusCode::NOT_FOUND);
}

TEST_F(StateStoreTest, StoreRequestsAreCounted) {
  Start();
  v1::ValidateToolCallResponse r;
  ASSERT_TRUE(Validate(Call("lookup", R"({"id":1})"), &r).ok());
  const auto metrics = testutil::ParseExposition(testutil::HttpGet(
      "http://127.0.0.1:" + std::to_string(metrics_port_) + "/metrics"));
  auto it = metrics.find(
      R"(toolgate_state_store_requests_total{operation="call_commit",result="ok"})");
  ASSERT_NE(it, metrics.end());
  EXPECT_GE(it->second, 1);
  // A replica does not know the store's counts: absent, not a false 0.
  EXPECT_EQ(metrics.count("toolgate_open_runs"), 0u);
  EXPECT_EQ(metrics.count("toolgate_approvals_pending"), 0u);
  EXPECT_EQ(metrics.count("toolgate_snapshots"), 1u);
}

// A store that cannot be used as configured stops the server at start-up
// with a message naming the flag to fix.
TEST(StateStoreStartup, WrongPasswordOrCaNamesTheFlag) {
  RedisServerOptions with_password;
  with_password.password = "right-password";
  RedisServer redis(with_password);
  ASSERT_TRUE(redis.started());
  const std::string log = TempFile("startup.log", "");
  ServerProcess wrong({"--state_store=" + redis.url(),
                       "--state_store_password_file=" +
                           TempFile("wrong", "wrong-password")},
                      false, log);
  EXPECT_FALSE(wrong.started());
  EXPECT_THAT(testutil::ReadAll(log), HasSubstr("--state_store_password_file"));

  testutil::TestCerts certs;
  ASSERT_TRUE(certs.ok());
  RedisServerOptions tls;
  tls.tls_cert_file = certs.Path("server.crt");
  tls.tls_key_file = certs.Path("server.key");
  tls.tls_ca_file = certs.Path("ca.crt");
  RedisServer tls_redis(tls);
  ASSERT_TRUE(tls_redis.started());
  ServerProcess wrong_ca({"--state_store=" + tls_redis.url(),
                          "--state_store_ca_file=" +
                              certs.Path("other_ca.crt")},
                         false, log);
  EXPECT_FALSE(wrong_ca.started());
  EXPECT_THAT(testutil::ReadAll(log), HasSubstr("--state_store_ca_file"));
  ServerProcess right_ca({"--state_store=" + tls_redis.url(),
                          "--state_store_ca_file=" + certs.Path("ca.crt")});
  EXPECT_TRUE(right_ca.started());
}

// A store that may evict state is named at start-up (it would forget
// runs and spent budgets under memory pressure).
TEST(StateStoreStartup, AnEvictingStoreIsWarnedAbout) {
  RedisServerOptions evicting;
  evicting.extra_args = {"--maxmemory-policy", "allkeys-lru"};
  RedisServer redis(evicting);
  ASSERT_TRUE(redis.started());
  const std::string log = TempFile("evicting.log", "");
  {
    ServerProcess server({"--state_store=" + redis.url()}, false, log);
    EXPECT_TRUE(server.started());
  }
  EXPECT_THAT(testutil::ReadAll(log),
              HasSubstr("maxmemory-policy allkeys-lru"));
  RedisServer fine;
  ASSERT_TRUE(fine.started());
  const std::string quiet = TempFile("noeviction.log", "");
  {
    ServerProcess server({"--state_store=" + fine.url()}, false, quiet);
    EXPECT_TRUE(server.started());
  }
  EXPECT_THAT(testutil::ReadAll(quiet),
              ::testing::Not(HasSubstr("maxmemory-policy")));
}

}  // namespace
}  // namespace toolgate
