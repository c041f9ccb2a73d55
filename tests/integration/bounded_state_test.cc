// Bounded state over gRPC against the real binary (issue 11): DeleteSnapshot
// and its codes (auth included), eviction under a flood that leaves pinned
// runs deciding, per-tenant run caps and idle-run expiry.
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

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
  const char* t = std::getenv("TEST_TMPDIR");
  return t ? t : "/tmp";
}

// One tool `name` taking {"x": <type>}.
std::string Tools(const std::string& name, const std::string& type) {
  return R"([{"type":"function","function":{"name":")" + name +
         R"(","parameters":{"type":"object","properties":{"x":{"type":")" +
         type + R"("}},"required":["x"]}}}])";
}

class Client {
 public:
  explicit Client(const ServerProcess& server, std::string bearer = "")
      : stub_(v1::ToolGate::NewStub(grpc::CreateChannel(
            server.address(), grpc::InsecureChannelCredentials()))),
        bearer_(std::move(bearer)) {}

  grpc::Status Create(const std::string& manifest, std::string* id = nullptr,
                      const std::string& name = "") {
    grpc::ClientContext ctx;
    Authorize(ctx, bearer_);
    v1::CreateSnapshotRequest req;
    req.set_manifest_json(manifest);
    req.set_name(name);
    v1::CreateSnapshotResponse resp;
    grpc::Status s = stub_->CreateSnapshot(&ctx, req, &resp);
    if (id != nullptr) *id = resp.snapshot_id();
    return s;
  }

  grpc::Status Delete(const std::string& id, const std::string& bearer) {
    grpc::ClientContext ctx;
    Authorize(ctx, bearer);
    v1::DeleteSnapshotRequest req;
    req.set_snapshot_id(id);
    v1::DeleteSnapshotResponse resp;
    return stub_->DeleteSnapshot(&ctx, req, &resp);
  }

  grpc::Status Get(const std::string& id, const std::string& name = "") {
    grpc::ClientContext ctx;
    v1::GetSnapshotRequest req;
    req.set_snapshot_id(id);
    req.set_name(name);
    v1::GetSnapshotResponse resp;
    return stub_->GetSnapshot(&ctx, req, &resp);
  }

  std::string IdOf(const std::string& name) {
    grpc::ClientContext ctx;
    v1::GetSnapshotRequest req;
    req.set_name(name);
    v1::GetSnapshotResponse resp;
    return stub_->GetSnapshot(&ctx, req, &resp).ok() ? resp.snapshot_id() : "";
  }

  grpc::Status Open(const std::string& snapshot, v1::OpenRunResponse* run,
                    const std::string& tenant = "") {
    grpc::ClientContext ctx;
    v1::OpenRunRequest req;
    req.set_snapshot_id(snapshot);
    if (!tenant.empty()) (*req.mutable_context())["tenant"] = tenant;
    return stub_->OpenRun(&ctx, req, run);
  }

  grpc::Status Close(const v1::OpenRunResponse& run) {
    grpc::ClientContext ctx;
    v1::CloseRunRequest req;
    req.set_run_id(run.run_id());
    req.set_run_token(run.run_token());
    v1::CloseRunResponse resp;
    return stub_->CloseRun(&ctx, req, &resp);
  }

  // One call of `tool` with {"x": value} in `run`; the status, and the
  // decision in `decision`.
  grpc::Status Validate(const v1::OpenRunResponse& run, const std::string& tool,
                        const std::string& value, v1::Decision* decision) {
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
    grpc::Status s = stub_->ValidateToolCall(&ctx, req, &resp);
    *decision = resp.decision();
    return s;
  }

  v1::Decision Decide(const v1::OpenRunResponse& run, const std::string& tool,
                      const std::string& value) {
    v1::Decision d = v1::DECISION_UNSPECIFIED;
    return Validate(run, tool, value, &d).ok() ? d : v1::DECISION_UNSPECIFIED;
  }

  size_t SnapshotCount() {
    grpc::ClientContext ctx;
    v1::ListSnapshotsRequest req;
    req.set_page_size(1000);
    v1::ListSnapshotsResponse resp;
    EXPECT_TRUE(stub_->ListSnapshots(&ctx, req, &resp).ok());
    return resp.snapshots_size();
  }

 private:
  static void Authorize(grpc::ClientContext& ctx, const std::string& bearer) {
    if (!bearer.empty()) ctx.AddMetadata("authorization", "Bearer " + bearer);
  }

  std::unique_ptr<v1::ToolGate::Stub> stub_;
  const std::string bearer_;
};

TEST(DeleteSnapshot, CodesAndAuth) {
  const std::string token_file = TmpDir() + "/admin_token_delete";
  std::ofstream(token_file) << "tok-delete\n";
  ServerProcess server({"--admin_token_file=" + token_file});
  ASSERT_TRUE(server.started());
  Client admin(server, "tok-delete");
  std::string pinned_id, free_id;
  ASSERT_TRUE(admin.Create(Tools("a", "string"), &pinned_id).ok());
  ASSERT_TRUE(admin.Create(Tools("b", "string"), &free_id, "bee").ok());
  // Loaded from the embedded examples at start-up.
  const std::string loaded_id = admin.IdOf("tickets");
  ASSERT_FALSE(loaded_id.empty());
  v1::OpenRunResponse run;
  ASSERT_TRUE(admin.Open(pinned_id, &run).ok());
  struct Case {
    std::string label;
    std::string id;
    std::string bearer;
    grpc::StatusCode want;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"no token", free_id, "", grpc::StatusCode::UNAUTHENTICATED, ""},
      {"wrong token", free_id, "tok-delet", grpc::StatusCode::UNAUTHENTICATED,
       ""},
      {"a run token is no admin token", free_id, run.run_token(),
       grpc::StatusCode::UNAUTHENTICATED, ""},
      {"absent", "sha256:0000", "tok-delete", grpc::StatusCode::NOT_FOUND, ""},
      {"no id", "", "tok-delete", grpc::StatusCode::INVALID_ARGUMENT, ""},
      {"pinned by an open run", pinned_id, "tok-delete",
       grpc::StatusCode::FAILED_PRECONDITION, "pinned by 1 open run"},
      {"loaded from --manifests", loaded_id, "tok-delete",
       grpc::StatusCode::FAILED_PRECONDITION, "--manifests"},
      {"deleted", free_id, "tok-delete", grpc::StatusCode::OK, ""},
      {"deleted twice", free_id, "tok-delete", grpc::StatusCode::NOT_FOUND, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.label);
    grpc::Status s = admin.Delete(c.id, c.bearer);
    EXPECT_EQ(s.error_code(), c.want) << s.error_message();
    EXPECT_THAT(s.error_message(), HasSubstr(c.message));
  }
  EXPECT_EQ(admin.Get(free_id).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(admin.Get("", "bee").error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(admin.Get(loaded_id).ok());
  // The pinned run still decides; once closed, its snapshot may go.
  EXPECT_EQ(admin.Decide(run, "a", "\"v\""), v1::DECISION_ALLOW);
  ASSERT_TRUE(admin.Close(run).ok());
  EXPECT_TRUE(admin.Delete(pinned_id, "tok-delete").ok());
  EXPECT_EQ(server.Stop(), 0);
}

TEST(DeleteSnapshot, StaysAdminWhenAnyoneMayCreate) {
  ServerProcess server({"--listen=0.0.0.0:0", "--snapshot_create=any"});
  ASSERT_TRUE(server.started());
  Client agent(server);
  std::string id;
  ASSERT_TRUE(agent.Create(Tools("a", "string"), &id).ok());
  grpc::Status s = agent.Delete(id, "");
  EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(s.error_message(), HasSubstr("--admin_token_file"));
  EXPECT_TRUE(agent.Get(id).ok());
}

TEST(BoundedStore, FloodEvictsButPinnedRunsKeepDeciding) {
  ServerProcess server({"--max_snapshots=20"});
  ASSERT_TRUE(server.started());
  Client c(server);
  std::string pinned_id;
  ASSERT_TRUE(c.Create(Tools("lookup", "string"), &pinned_id).ok());
  v1::OpenRunResponse run;
  ASSERT_TRUE(c.Open(pinned_id, &run).ok());
  std::vector<std::string> flood;
  for (int i = 0; i < 200; ++i) {
    std::string id;
    grpc::Status s =
        c.Create(Tools("tool_" + std::to_string(i), "string"), &id);
    ASSERT_TRUE(s.ok()) << i << ": " << s.error_message();
    flood.push_back(id);
  }
  EXPECT_LE(c.SnapshotCount(), 20u);
  EXPECT_EQ(c.Get(flood.front()).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(c.Get(flood.back()).ok());
  // The run opened before the flood decides on its own snapshot.
  EXPECT_TRUE(c.Get(pinned_id).ok());
  EXPECT_EQ(c.Decide(run, "lookup", "\"v\""), v1::DECISION_ALLOW);
  EXPECT_EQ(c.Decide(run, "lookup", "7"), v1::DECISION_REJECT);
  // And creating (even an evicted manifest again) works after it.
  EXPECT_TRUE(c.Create(Tools("tool_0", "string")).ok());
  EXPECT_TRUE(c.Create(Tools("after", "integer")).ok());
  EXPECT_EQ(server.Stop(), 0);
}

TEST(BoundedRuns, TenantCapAndIdleExpiry) {
  ServerProcess server({"--max_runs_per_tenant=2", "--run_idle_ttl_seconds=1"});
  ASSERT_TRUE(server.started());
  Client c(server);
  std::string id;
  ASSERT_TRUE(c.Create(Tools("a", "string"), &id).ok());
  v1::OpenRunResponse r1, r2, r3, other;
  ASSERT_TRUE(c.Open(id, &r1, "acme").ok());
  ASSERT_TRUE(c.Open(id, &r2, "acme").ok());
  grpc::Status s = c.Open(id, &r3, "acme");
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(s.error_message(), HasSubstr("tenant \"acme\" has 2 open runs "
                                           "(--max_runs_per_tenant=2)"));
  EXPECT_TRUE(c.Open(id, &other, "globex").ok());
  // Idle past the TTL: as gone as a closed run, and no longer pinning.
  std::this_thread::sleep_for(std::chrono::milliseconds(1600));
  v1::Decision d;
  EXPECT_EQ(c.Validate(r1, "a", "\"v\"", &d).error_code(),
            grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(c.Open(id, &r3, "acme").ok());  // The tenant's slots are free.
  ASSERT_TRUE(c.Close(r3).ok());
  EXPECT_TRUE(c.Delete(id, "").ok());  // Loopback: admin without a token.
  EXPECT_EQ(server.Stop(), 0);
}

}  // namespace
}  // namespace toolgate
