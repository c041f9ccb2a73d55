// Issue 25, item 13, through the real binary: one run took all 256
// AwaitApproval slots, and one tenant filled the global approval store,
// refusing everyone else for ~75 minutes (never-decided approvals were kept
// an hour past their expiry). Now: --max_waits_per_run,
// --max_pending_approvals_per_tenant, and expired pending approvals go at
// their expiry.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/testing/server_process.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace {

using ::testing::HasSubstr;
using testutil::ServerProcess;

constexpr char kToken[] = "limits-approver-token";
constexpr char kManifest[] = R"({"toolgate":"v1","tools":[
  {"name":"wire_money","side_effect":"destructive","input_schema":{
    "type":"object","properties":{"amount":{"type":"integer"}},
    "required":["amount"]},"policy":{"requires_approval":true}}]})";

std::string Wire(int amount, const std::string& memo) {
  return R"({"name":"wire_money","arguments":{"amount":)" +
         std::to_string(amount) +
         (memo.empty() ? "" : R"(,"memo":")" + memo + "\"") + "}}";
}

// A server with an approver token and `flags`, and the calls these tests
// make to it.
class Gate {
 public:
  explicit Gate(std::vector<std::string> flags) {
    const char* tmp = std::getenv("TEST_TMPDIR");
    const std::string token_file =
        std::string(tmp ? tmp : "/tmp") + "/limits_token";
    std::ofstream(token_file) << kToken << "\n";
    flags.push_back("--admin_token_file=" + token_file);
    server_ = std::make_unique<ServerProcess>(flags);
    if (!server_->started()) return;
    stub_ = v1::ToolGate::NewStub(grpc::CreateChannel(
        server_->address(), grpc::InsecureChannelCredentials()));
    grpc::ClientContext ctx;
    ctx.AddMetadata("authorization", std::string("Bearer ") + kToken);
    v1::CreateSnapshotRequest req;
    req.set_manifest_json(kManifest);
    v1::CreateSnapshotResponse resp;
    if (stub_->CreateSnapshot(&ctx, req, &resp).ok()) {
      snapshot_ = resp.snapshot_id();
    }
  }
  bool ok() const { return !snapshot_.empty(); }
  std::string memo;  // An argument every call below carries when set.

  v1::OpenRunResponse Open(const std::string& tenant) {
    grpc::ClientContext ctx;
    v1::OpenRunRequest req;
    req.set_snapshot_id(snapshot_);
    if (!tenant.empty()) (*req.mutable_context())["tenant"] = tenant;
    v1::OpenRunResponse run;
    EXPECT_TRUE(stub_->OpenRun(&ctx, req, &run).ok());
    return run;
  }

  // The RPC's status; the response in `resp`.
  grpc::Status Validate(const v1::OpenRunResponse& run, int amount,
                        v1::ValidateToolCallResponse* resp,
                        const std::string& approval_id = "") {
    grpc::ClientContext ctx;
    v1::ValidateToolCallRequest req;
    req.set_run_id(run.run_id());
    req.set_run_token(run.run_token());
    req.set_native_json(Wire(amount, memo));
    req.set_approval_id(approval_id);
    return stub_->ValidateToolCall(&ctx, req, resp);
  }

  // NEEDS_APPROVAL expected; returns the approval id.
  std::string Ask(const v1::OpenRunResponse& run, int amount) {
    v1::ValidateToolCallResponse resp;
    grpc::Status s = Validate(run, amount, &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    EXPECT_EQ(resp.decision(), v1::DECISION_NEEDS_APPROVAL);
    return resp.approval_id();
  }

  grpc::Status Await(const v1::OpenRunResponse& run, const std::string& id,
                     int64_t timeout_ms, v1::ApprovalState* state = nullptr) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::chrono::milliseconds(timeout_ms + 30000));
    v1::AwaitApprovalRequest req;
    req.set_run_id(run.run_id());
    req.set_run_token(run.run_token());
    req.set_approval_id(id);
    req.set_timeout_ms(timeout_ms);
    v1::AwaitApprovalResponse resp;
    grpc::Status s = stub_->AwaitApproval(&ctx, req, &resp);
    if (state != nullptr) *state = resp.state();
    return s;
  }

  grpc::Status Decide(const std::string& id, bool approve) {
    grpc::ClientContext ctx;
    ctx.AddMetadata("authorization", std::string("Bearer ") + kToken);
    v1::DecideApprovalRequest req;
    req.set_approval_id(id);
    req.set_approve(approve);
    req.set_approver("oncall");
    v1::DecideApprovalResponse resp;
    return stub_->DecideApproval(&ctx, req, &resp);
  }

  int Listed() {
    grpc::ClientContext ctx;
    ctx.AddMetadata("authorization", std::string("Bearer ") + kToken);
    v1::ListApprovalsResponse resp;
    EXPECT_TRUE(
        stub_->ListApprovals(&ctx, v1::ListApprovalsRequest(), &resp).ok());
    return resp.approvals_size();
  }

 private:
  std::unique_ptr<ServerProcess> server_;
  std::unique_ptr<v1::ToolGate::Stub> stub_;
  std::string snapshot_;
};

TEST(ApprovalLimits, OneRunHoldsAtMostItsWaits) {
  struct Case {
    std::vector<std::string> flags;
    int cap;
  };
  for (const Case& c :
       std::vector<Case>{{{}, 4}, {{"--max_waits_per_run=1"}, 1}}) {
    SCOPED_TRACE(c.cap);
    Gate gate(c.flags);
    ASSERT_TRUE(gate.ok());
    const v1::OpenRunResponse run = gate.Open("t");
    const std::string id = gate.Ask(run, 1);
    std::atomic<int> waited{0}, refused{0};
    std::vector<std::thread> waiters;
    for (int i = 0; i < 3 * c.cap + 2; ++i) {
      waiters.emplace_back([&] {
        v1::ApprovalState state;
        grpc::Status s = gate.Await(run, id, 3000, &state);
        if (s.ok() && state == v1::APPROVAL_STATE_PENDING) ++waited;
        if (s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
          EXPECT_THAT(s.error_message(), HasSubstr("--max_waits_per_run="));
          ++refused;
        }
      });
    }
    // Meanwhile another run of the same tenant still waits.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const v1::OpenRunResponse other = gate.Open("t");
    const std::string other_id = gate.Ask(other, 2);
    v1::ApprovalState state;
    EXPECT_TRUE(gate.Await(other, other_id, 0, &state).ok());
    EXPECT_EQ(state, v1::APPROVAL_STATE_PENDING);
    for (std::thread& t : waiters) t.join();
    EXPECT_EQ(waited.load(), c.cap);
    EXPECT_EQ(refused.load(), 2 * c.cap + 2);
    // The slots come back once the waits end.
    EXPECT_TRUE(gate.Await(run, id, 0, &state).ok());
  }
}

TEST(ApprovalLimits, ATenantAtItsCapLeavesOthersTheirApprovals) {
  Gate gate({"--max_pending_approvals_per_tenant=3"});
  ASSERT_TRUE(gate.ok());
  const v1::OpenRunResponse a1 = gate.Open("a"), a2 = gate.Open("a");
  const std::string first = gate.Ask(a1, 1);
  gate.Ask(a1, 2);
  gate.Ask(a2, 3);
  v1::ValidateToolCallResponse resp;
  grpc::Status full = gate.Validate(a2, 4, &resp);
  EXPECT_EQ(full.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(full.error_message(), HasSubstr("tenant \"a\""));
  EXPECT_THAT(full.error_message(),
              HasSubstr("--max_pending_approvals_per_tenant=3"));
  // Other tenants, and runs without one, still ask.
  for (const char* tenant : {"b", ""}) {
    EXPECT_FALSE(gate.Ask(gate.Open(tenant), 5).empty()) << tenant;
  }
  // The same call again gets its pending approval back, cap or not.
  EXPECT_EQ(gate.Ask(a1, 1), first);
  // A decision frees a slot of the tenant.
  ASSERT_TRUE(gate.Decide(first, false).ok());
  EXPECT_FALSE(gate.Ask(a2, 4).empty());
}

TEST(ApprovalLimits, ExpiredApprovalsFreeTheStoreAtTheirExpiry) {
  Gate gate({"--approval_ttl_seconds=1", "--max_approvals=3"});
  ASSERT_TRUE(gate.ok());
  const v1::OpenRunResponse greedy = gate.Open("greedy");
  std::vector<std::string> ids;
  for (int amount = 1; amount <= 3; ++amount) {
    ids.push_back(gate.Ask(greedy, amount));
  }
  const v1::OpenRunResponse other = gate.Open("other");
  v1::ValidateToolCallResponse resp;
  EXPECT_EQ(gate.Validate(other, 9, &resp).error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  // Their expiry, not an hour after it.
  EXPECT_FALSE(gate.Ask(other, 9).empty());
  EXPECT_EQ(gate.Listed(), 1);
  // The agent that presents one still hears why it does not allow.
  ASSERT_TRUE(gate.Validate(greedy, 1, &resp, ids[0]).ok());
  ASSERT_EQ(resp.decision(), v1::DECISION_REJECT);
  EXPECT_EQ(resp.violations(0).code(), "approval_expired");
  v1::ApprovalState state;
  ASSERT_TRUE(gate.Await(greedy, ids[1], 1000, &state).ok());
  EXPECT_EQ(state, v1::APPROVAL_STATE_EXPIRED);
  EXPECT_EQ(gate.Decide(ids[2], true).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
}

// --max_approval_bytes counts the approvals of every run (in the shared
// store too: the _redis variant).
TEST(ApprovalLimits, ApprovalBytesAreCountedOverEveryRun) {
  Gate gate({"--max_approval_bytes=1048576"});
  ASSERT_TRUE(gate.ok());
  gate.memo = std::string(180000, 'x');  // Five fit in 1 MiB, six do not.
  const v1::OpenRunResponse a = gate.Open("a");
  for (int amount = 1; amount <= 5; ++amount) {
    ASSERT_FALSE(gate.Ask(a, amount).empty()) << amount;
  }
  const v1::OpenRunResponse b = gate.Open("b");
  v1::ValidateToolCallResponse resp;
  const grpc::Status full = gate.Validate(b, 6, &resp);
  EXPECT_EQ(full.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(full.error_message(), HasSubstr("--max_approval_bytes=1048576"));
  gate.memo = "";  // A small one still fits.
  EXPECT_FALSE(gate.Ask(b, 6).empty());
}

}  // namespace
}  // namespace toolgate
