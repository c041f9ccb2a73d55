// The fixture of the replica tests (issue 26): one redis-server and three
// real toolgate processes sharing it, fresh for each test, and the calls
// the tests make, each to a chosen replica.
#ifndef TOOLGATE_TESTS_INTEGRATION_REPLICAS_FIXTURE_H_
#define TOOLGATE_TESTS_INTEGRATION_REPLICAS_FIXTURE_H_

#include <signal.h>
#include <sys/types.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/testing/redis_server.h"
#include "tests/testing/server_process.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace replicas_testing {

inline constexpr int kReplicas = 3;
inline constexpr char kAdminToken[] = "replicas-test-admin-token-7";

inline constexpr char kManifest[] = R"({"toolgate":"v1",
  "settings":{"max_calls_per_run_by_class":{"write":50}},
  "tools":[
  {"name":"wire_money","side_effect":"destructive","input_schema":{
    "type":"object","properties":{"amount":{"type":"integer"}},
    "required":["amount"]},"policy":{"requires_approval":true}},
  {"name":"send_mail","side_effect":"write","input_schema":{"type":"object"},
   "policy":{"max_calls_per_run":3}},
  {"name":"lookup","side_effect":"read","input_schema":{
    "type":"object","properties":{"id":{"type":"string"}},
    "required":["id"]}}]})";

inline std::string Call(const std::string& tool, const std::string& arguments) {
  return R"({"name":")" + tool + R"(","arguments":)" + arguments + "}";
}

inline const std::string kValidLookup = Call("lookup", R"({"id":"A-1"})");
inline const std::string kInvalidLookup = Call("lookup", R"({"id":7})");
inline const std::string kSendMail = Call("send_mail", "{}");

inline std::string Code(const v1::ValidateToolCallResponse& r) {
  return r.violations_size() > 0 ? r.violations(0).code() : "";
}

class ReplicasTest : public ::testing::Test {
 protected:
  // One redis-server and three replicas sharing it, fresh for each test.
  void SetUp() override {
    redis_ = std::make_unique<testutil::RedisServer>();
    ASSERT_TRUE(redis_->started());
    const char* tmp = std::getenv("TEST_TMPDIR");
    const std::string token_file =
        std::string(tmp ? tmp : "/tmp") + "/replicas_test_admin_token";
    std::ofstream(token_file) << kAdminToken << "\n";
    for (int i = 0; i < kReplicas; ++i) {
      servers_.push_back(std::make_unique<testutil::ServerProcess>(
          std::vector<std::string>{"--state_store=" + redis_->url(),
                                   "--admin_token_file=" + token_file,
                                   "--snapshot_create=any",
                                   "--approval_ttl_seconds=120"}));
      ASSERT_TRUE(servers_.back()->started()) << "replica " << i;
      stubs_.push_back(v1::ToolGate::NewStub(grpc::CreateChannel(
          servers_.back()->address(), grpc::InsecureChannelCredentials())));
    }
  }

  void TearDown() override {
    stubs_.clear();
    servers_.clear();  // SIGTERM each replica before Redis goes.
    redis_.reset();
  }

  v1::ToolGate::Stub* Stub(int replica) {
    return stubs_[replica % kReplicas].get();
  }
  // The replica the next call of a round-robin client goes to.
  int Next() { return next_++ % kReplicas; }

  std::string CreateSnapshot(int replica, const std::string& name = "") {
    grpc::ClientContext ctx;
    v1::CreateSnapshotRequest req;
    req.set_manifest_json(kManifest);
    req.set_name(name);
    v1::CreateSnapshotResponse resp;
    grpc::Status s = Stub(replica)->CreateSnapshot(&ctx, req, &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return resp.snapshot_id();
  }

  v1::OpenRunResponse OpenRun(int replica, const std::string& snapshot,
                              int max_rejects = 20, int threshold = 0) {
    grpc::ClientContext ctx;
    v1::OpenRunRequest req;
    req.set_snapshot_id(snapshot);
    req.set_model("test-model");
    req.set_max_consecutive_rejects(max_rejects);
    req.set_kill_switch_threshold(threshold);
    req.set_kill_switch_window(threshold > 0 ? 10 : 0);
    v1::OpenRunResponse resp;
    grpc::Status s = Stub(replica)->OpenRun(&ctx, req, &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return resp;
  }

  // A fresh snapshot (on replica 0) and a run on replica 1.
  v1::OpenRunResponse OpenTestRun(int max_rejects = 20, int threshold = 0) {
    return OpenRun(1, CreateSnapshot(0), max_rejects, threshold);
  }

  grpc::Status TryValidate(int replica, const v1::OpenRunResponse& run,
                           const std::string& native,
                           v1::ValidateToolCallResponse* resp,
                           const std::string& approval_id = "") {
    grpc::ClientContext ctx;
    v1::ValidateToolCallRequest req;
    req.set_run_id(run.run_id());
    req.set_run_token(run.run_token());
    req.set_native_json(native);
    req.set_approval_id(approval_id);
    return Stub(replica)->ValidateToolCall(&ctx, req, resp);
  }

  v1::ValidateToolCallResponse Validate(int replica,
                                        const v1::OpenRunResponse& run,
                                        const std::string& native,
                                        const std::string& approval_id = "") {
    v1::ValidateToolCallResponse resp;
    grpc::Status s = TryValidate(replica, run, native, &resp, approval_id);
    EXPECT_TRUE(s.ok()) << "replica " << replica << ": " << s.error_message();
    return resp;
  }

  v1::ValidateToolOutputResponse Output(int replica,
                                        const v1::OpenRunResponse& run,
                                        const std::string& body) {
    grpc::ClientContext ctx;
    v1::ValidateToolOutputRequest req;
    req.set_run_id(run.run_id());
    req.set_run_token(run.run_token());
    req.set_tool_name("lookup");
    req.set_content_type("application/json");
    req.set_http_status(-1);
    req.set_body(body);
    v1::ValidateToolOutputResponse resp;
    grpc::Status s = Stub(replica)->ValidateToolOutput(&ctx, req, &resp);
    EXPECT_TRUE(s.ok()) << "replica " << replica << ": " << s.error_message();
    return resp;
  }

  grpc::Status RunRpc(int replica, const v1::OpenRunResponse& run,
                      bool close) {
    grpc::ClientContext ctx;
    if (close) {
      v1::CloseRunRequest req;
      req.set_run_id(run.run_id());
      req.set_run_token(run.run_token());
      v1::CloseRunResponse resp;
      return Stub(replica)->CloseRun(&ctx, req, &resp);
    }
    v1::ResetRunRequest req;
    req.set_run_id(run.run_id());
    req.set_run_token(run.run_token());
    v1::ResetRunResponse resp;
    return Stub(replica)->ResetRun(&ctx, req, &resp);
  }

  grpc::Status Decide(int replica, const std::string& id,
                      v1::DecideApprovalResponse* resp) {
    grpc::ClientContext ctx;
    ctx.AddMetadata("authorization", std::string("Bearer ") + kAdminToken);
    v1::DecideApprovalRequest req;
    req.set_approval_id(id);
    req.set_approve(true);
    req.set_approver("alice@example.com");
    req.set_reason("checked with finance");
    return Stub(replica)->DecideApproval(&ctx, req, resp);
  }

  v1::ApprovalState Await(int replica, const v1::OpenRunResponse& run,
                          const std::string& id, int64_t timeout_ms) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::chrono::milliseconds(timeout_ms + 10000));
    v1::AwaitApprovalRequest req;
    req.set_run_id(run.run_id());
    req.set_run_token(run.run_token());
    req.set_approval_id(id);
    req.set_timeout_ms(timeout_ms);
    v1::AwaitApprovalResponse resp;
    grpc::Status s = Stub(replica)->AwaitApproval(&ctx, req, &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return resp.state();
  }

  grpc::Status DeleteSnapshot(int replica, const std::string& id) {
    grpc::ClientContext ctx;
    ctx.AddMetadata("authorization", std::string("Bearer ") + kAdminToken);
    v1::DeleteSnapshotRequest req;
    req.set_snapshot_id(id);
    v1::DeleteSnapshotResponse resp;
    return Stub(replica)->DeleteSnapshot(&ctx, req, &resp);
  }

  grpc::StatusCode SnapshotStatus(int replica, const std::string& id,
                                  const std::string& name) {
    grpc::ClientContext ctx;
    v1::GetSnapshotRequest req;
    req.set_snapshot_id(id);
    req.set_name(name);
    v1::GetSnapshotResponse resp;
    return Stub(replica)->GetSnapshot(&ctx, req, &resp).error_code();
  }

  // The codes of ValidateToolCall, ValidateToolOutput, ResetRun and
  // AwaitApproval in `run` on `replica`.
  std::vector<grpc::StatusCode> RunStatuses(int replica,
                                            const v1::OpenRunResponse& run) {
    std::vector<grpc::StatusCode> codes;
    v1::ValidateToolCallResponse call;
    codes.push_back(TryValidate(replica, run, kValidLookup, &call).error_code());
    EXPECT_EQ(call.decision(), v1::DECISION_UNSPECIFIED);
    grpc::ClientContext output_ctx;
    v1::ValidateToolOutputRequest output;
    output.set_run_id(run.run_id());
    output.set_run_token(run.run_token());
    output.set_tool_name("lookup");
    output.set_content_type("application/json");
    output.set_http_status(-1);
    output.set_body("<html></html>");
    v1::ValidateToolOutputResponse output_resp;
    codes.push_back(
        Stub(replica)->ValidateToolOutput(&output_ctx, output, &output_resp)
            .error_code());
    codes.push_back(RunRpc(replica, run, /*close=*/false).error_code());
    grpc::ClientContext await_ctx;
    v1::AwaitApprovalRequest await;
    await.set_run_id(run.run_id());
    await.set_run_token(run.run_token());
    await.set_approval_id("apr_00000000000000000000000000000000");
    v1::AwaitApprovalResponse await_resp;
    codes.push_back(
        Stub(replica)->AwaitApproval(&await_ctx, await, &await_resp)
            .error_code());
    return codes;
  }

  std::unique_ptr<testutil::RedisServer> redis_;
  std::vector<std::unique_ptr<testutil::ServerProcess>> servers_;
  std::vector<std::unique_ptr<v1::ToolGate::Stub>> stubs_;
  int next_ = 0;
};

}  // namespace replicas_testing
}  // namespace toolgate

#endif  // TOOLGATE_TESTS_INTEGRATION_REPLICAS_FIXTURE_H_
