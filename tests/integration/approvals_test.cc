// Human approval and call budgets end to end through the real server:
// NEEDS_APPROVAL hands out an approval id, an approver (with the admin
// token: no listener stands in for it) decides it, the agent awaits the
// decision and sends the same call with the id, which ALLOWs exactly once;
// budgets hold under concurrency.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testing/server_fixture.h"

namespace toolgate {
namespace {

constexpr char kManifest[] = R"({"toolgate":"v1",
  "settings":{"max_calls_per_run_by_class":{"write":50}},
  "tools":[
  {"name":"wire_money","side_effect":"destructive","input_schema":{
    "type":"object","properties":{"amount":{"type":"integer"}},
    "required":["amount"]},"policy":{"requires_approval":true}},
  {"name":"send_mail","side_effect":"write","input_schema":{"type":"object"},
   "policy":{"max_calls_per_run":3}},
  {"name":"lookup","side_effect":"read","input_schema":{"type":"object"}}]})";

std::string Call(const std::string& tool, const std::string& arguments) {
  return R"({"name":")" + tool + R"(","arguments":)" + arguments + "}";
}

constexpr char kApproverToken[] = "approvals-test-token-42";

class ApprovalsTest : public testutil::ServerFixture {
 protected:
  // Hides ServerFixture's: this suite's server has an approver credential;
  // agents still register their manifests (--snapshot_create=any).
  static void SetUpTestSuite() {
    const char* tmp = std::getenv("TEST_TMPDIR");
    const std::string token_file =
        std::string(tmp ? tmp : "/tmp") + "/approvals_test_token";
    std::ofstream(token_file) << kApproverToken << "\n";
    server_ = new testutil::ServerProcess(
        {"--admin_token_file=" + token_file, "--snapshot_create=any"});
    ASSERT_TRUE(server_->started());
  }

  void SetUp() override {
    ServerFixture::SetUp();
    snapshot_ = CreateSnapshot(kManifest);
    run_ = OpenRun(snapshot_, 20);
  }

  v1::ValidateToolCallResponse Validate(const std::string& native,
                                        const std::string& approval_id = "") {
    v1::ValidateToolCallRequest req;
    req.set_run_id(run_.run_id());
    req.set_run_token(run_.run_token());
    req.set_native_json(native);
    req.set_approval_id(approval_id);
    v1::ValidateToolCallResponse resp;
    grpc::Status s = ServerFixture::Validate(req, &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return resp;
  }

  grpc::Status Decide(const std::string& id, bool approve,
                      const std::string& approver,
                      v1::DecideApprovalResponse* resp) {
    grpc::ClientContext ctx;
    ctx.AddMetadata("authorization", std::string("Bearer ") + kApproverToken);
    v1::DecideApprovalRequest req;
    req.set_approval_id(id);
    req.set_approve(approve);
    req.set_approver(approver);
    req.set_reason("checked with finance");
    return stub_->DecideApproval(&ctx, req, resp);
  }

  v1::ApprovalState Await(const std::string& id, int64_t timeout_ms) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::chrono::milliseconds(timeout_ms + 10000));
    v1::AwaitApprovalRequest req;
    req.set_run_id(run_.run_id());
    req.set_run_token(run_.run_token());
    req.set_approval_id(id);
    req.set_timeout_ms(timeout_ms);
    v1::AwaitApprovalResponse resp;
    grpc::Status s = stub_->AwaitApproval(&ctx, req, &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return resp.state();
  }

  // NEEDS_APPROVAL for a wire of `amount`; returns the approval id.
  std::string RequestApproval(int amount) {
    v1::ValidateToolCallResponse r = Validate(
        Call("wire_money", R"({"amount":)" + std::to_string(amount) + "}"));
    EXPECT_EQ(r.decision(), v1::DECISION_NEEDS_APPROVAL) << r.DebugString();
    EXPECT_FALSE(r.approval_id().empty());
    return r.approval_id();
  }

  std::string snapshot_;
  v1::OpenRunResponse run_;
};

TEST_F(ApprovalsTest, ApprovedCallIsAllowedExactlyOnce) {
  const std::string id = RequestApproval(100);
  // The agent waits; an admin approves 200 ms later; the wait ends then.
  std::thread admin([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    v1::DecideApprovalResponse decided;
    grpc::Status s = Decide(id, true, "alice@example.com", &decided);
    EXPECT_TRUE(s.ok()) << s.error_message();
    EXPECT_EQ(decided.approval().state(), v1::APPROVAL_STATE_APPROVED);
    EXPECT_EQ(decided.approval().approver(), "alice@example.com");
  });
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(Await(id, 60000), v1::APPROVAL_STATE_APPROVED);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  admin.join();

  // Other arguments under this approval: mismatch, and nothing spent.
  v1::ValidateToolCallResponse r =
      Validate(Call("wire_money", R"({"amount":9999})"), id);
  ASSERT_EQ(r.decision(), v1::DECISION_REJECT);
  EXPECT_EQ(r.violations(0).code(), "approval_mismatch");

  r = Validate(Call("wire_money", R"({"amount":100})"), id);
  EXPECT_EQ(r.decision(), v1::DECISION_ALLOW) << r.DebugString();
  r = Validate(Call("wire_money", R"({"amount":100})"), id);
  ASSERT_EQ(r.decision(), v1::DECISION_REJECT);
  EXPECT_EQ(r.violations(0).code(), "approval_used");
}

TEST_F(ApprovalsTest, PendingAndDeniedApprovalsDoNotAllow) {
  const std::string id = RequestApproval(5);
  v1::ValidateToolCallResponse r =
      Validate(Call("wire_money", R"({"amount":5})"), id);
  ASSERT_EQ(r.decision(), v1::DECISION_REJECT);
  EXPECT_EQ(r.violations(0).code(), "approval_pending");
  EXPECT_EQ(Await(id, 50), v1::APPROVAL_STATE_PENDING);  // Timed out.

  v1::DecideApprovalResponse decided;
  ASSERT_TRUE(Decide(id, false, "bob", &decided).ok());
  r = Validate(Call("wire_money", R"({"amount":5})"), id);
  ASSERT_EQ(r.decision(), v1::DECISION_REJECT);
  EXPECT_EQ(r.violations(0).code(), "approval_denied");
  // Deciding twice never flips a decision.
  EXPECT_EQ(Decide(id, true, "bob", &decided).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
}

TEST_F(ApprovalsTest, DecideApprovalRefusesBadRequests) {
  const std::string id = RequestApproval(7);
  v1::DecideApprovalResponse decided;
  EXPECT_EQ(Decide(id, true, "", &decided).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(Decide("apr_unknown", true, "alice", &decided).error_code(),
            grpc::StatusCode::NOT_FOUND);
}

TEST_F(ApprovalsTest, ListApprovalsShowsTheRequest) {
  const std::string id = RequestApproval(42);
  grpc::ClientContext ctx;
  ctx.AddMetadata("authorization", std::string("Bearer ") + kApproverToken);
  v1::ListApprovalsRequest req;
  req.set_run_id(run_.run_id());
  req.set_state(v1::APPROVAL_STATE_PENDING);
  v1::ListApprovalsResponse resp;
  ASSERT_TRUE(stub_->ListApprovals(&ctx, req, &resp).ok());
  ASSERT_EQ(resp.approvals_size(), 1);
  const v1::Approval& a = resp.approvals(0);
  EXPECT_EQ(a.approval_id(), id);
  EXPECT_EQ(a.tool(), "wire_money");
  EXPECT_EQ(a.arguments_json(), R"({"amount":42})");
  EXPECT_EQ(a.model(), "test-model");
  EXPECT_GT(a.expires_at().seconds(), a.created_at().seconds());
}

TEST_F(ApprovalsTest, StatelessCallsNeedARun) {
  v1::ValidateToolCallRequest req;
  req.set_snapshot_id(snapshot_);
  req.set_native_json(Call("wire_money", R"({"amount":1})"));
  v1::ValidateToolCallResponse resp;
  ASSERT_TRUE(ServerFixture::Validate(req, &resp).ok());
  EXPECT_EQ(resp.decision(), v1::DECISION_NEEDS_APPROVAL);
  EXPECT_TRUE(resp.approval_id().empty());
  EXPECT_NE(resp.message().find("run"), std::string::npos) << resp.message();
}

TEST_F(ApprovalsTest, ConcurrentUsesOfOneApprovalAllowOnce) {
  const std::string id = RequestApproval(77);
  v1::DecideApprovalResponse decided;
  ASSERT_TRUE(Decide(id, true, "alice", &decided).ok());
  std::atomic<int> allowed{0}, used{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 32; ++i) {
    threads.emplace_back([&] {
      v1::ValidateToolCallResponse r =
          Validate(Call("wire_money", R"({"amount":77})"), id);
      if (r.decision() == v1::DECISION_ALLOW) ++allowed;
      if (r.violations_size() > 0 &&
          r.violations(0).code() == "approval_used") {
        ++used;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(allowed.load(), 1);
  EXPECT_EQ(used.load(), 31);
}

TEST_F(ApprovalsTest, CallBudgetAllowsExactlyItsCallsUnderConcurrency) {
  std::atomic<int> allowed{0}, exhausted{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 50; ++i) {
    threads.emplace_back([&] {
      v1::ValidateToolCallResponse r = Validate(Call("send_mail", "{}"));
      if (r.decision() == v1::DECISION_ALLOW) ++allowed;
      if (r.violations_size() > 0 &&
          r.violations(0).code() == "call_budget_exhausted") {
        ++exhausted;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(allowed.load(), 3);
  EXPECT_EQ(exhausted.load(), 47);
  // Reads are not counted; and a spent budget does not trip the breaker.
  EXPECT_EQ(Validate(Call("lookup", "{}")).decision(), v1::DECISION_ALLOW);
}

}  // namespace
}  // namespace toolgate
