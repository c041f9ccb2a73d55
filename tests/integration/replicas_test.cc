// Several replicas sharing one state store (issue 26): three real toolgate
// processes started with the same --state_store=redis://..., and a client
// that sends each call of a run to a different replica (round robin). Every
// test asserts what a user sees from one process: attempts, the breaker,
// the kill switch, call budgets, approvals and run lifetimes are the run's,
// whatever replica a call reaches.
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
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kReplicas = 3;
constexpr char kAdminToken[] = "replicas-test-admin-token-7";

constexpr char kManifest[] = R"({"toolgate":"v1",
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

std::string Call(const std::string& tool, const std::string& arguments) {
  return R"({"name":")" + tool + R"(","arguments":)" + arguments + "}";
}

const std::string kValidLookup = Call("lookup", R"({"id":"A-1"})");
const std::string kInvalidLookup = Call("lookup", R"({"id":7})");
const std::string kSendMail = Call("send_mail", "{}");

std::string Code(const v1::ValidateToolCallResponse& r) {
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

// A user registers a manifest once, on whatever replica answers, and then
// names it (by id or by name) on any replica.
TEST_F(ReplicasTest, SnapshotCreatedOnOneReplicaIsUsableOnAll) {
  const std::string id = CreateSnapshot(0, "repl-catalogue");
  ASSERT_FALSE(id.empty());
  for (int replica = 1; replica < kReplicas; ++replica) {
    for (bool by_name : {false, true}) {
      grpc::ClientContext ctx;
      v1::GetSnapshotRequest req;
      if (by_name) req.set_name("repl-catalogue");
      if (!by_name) req.set_snapshot_id(id);
      v1::GetSnapshotResponse resp;
      grpc::Status s = Stub(replica)->GetSnapshot(&ctx, req, &resp);
      ASSERT_TRUE(s.ok()) << "replica " << replica << ": " << s.error_message();
      EXPECT_EQ(resp.snapshot_id(), id);
      EXPECT_EQ(resp.name(), "repl-catalogue");
      EXPECT_EQ(resp.tool_names_size(), 3);
    }
  }
  const v1::OpenRunResponse run = OpenRun(1, id);
  EXPECT_EQ(run.snapshot_id(), id);
  for (int i = 0; i < 2 * kReplicas; ++i) {
    const int replica = Next();
    EXPECT_EQ(Validate(replica, run, kValidLookup).decision(),
              v1::DECISION_ALLOW)
        << "replica " << replica;
  }
}

// A name an agent claimed on one replica is taken on all of them.
TEST_F(ReplicasTest, ClaimedSnapshotNameIsTakenOnEveryReplica) {
  const std::string id = CreateSnapshot(0, "repl-crm");
  ASSERT_FALSE(id.empty());
  grpc::ClientContext ctx;
  v1::CreateSnapshotRequest req;
  req.set_manifest_json(R"([{"name":"other","input_schema":{}}])");
  req.set_name("repl-crm");
  v1::CreateSnapshotResponse resp;
  const grpc::Status s = Stub(1)->CreateSnapshot(&ctx, req, &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED)
      << s.error_message();
  for (int replica = 0; replica < kReplicas; ++replica) {
    EXPECT_EQ(SnapshotStatus(replica, "", "repl-crm"), grpc::StatusCode::OK);
  }
}

// An admin's delete on any replica removes the snapshot everywhere.
TEST_F(ReplicasTest, DeletedSnapshotIsGoneOnEveryReplica) {
  const std::string id = CreateSnapshot(0, "repl-gone");
  ASSERT_FALSE(id.empty());
  grpc::ClientContext ctx;
  ctx.AddMetadata("authorization", std::string("Bearer ") + kAdminToken);
  v1::DeleteSnapshotRequest req;
  req.set_snapshot_id(id);
  v1::DeleteSnapshotResponse resp;
  const grpc::Status s = Stub(2)->DeleteSnapshot(&ctx, req, &resp);
  ASSERT_TRUE(s.ok()) << s.error_message();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  for (int replica = 0; replica < kReplicas; ++replica) {
    EXPECT_EQ(SnapshotStatus(replica, id, ""), grpc::StatusCode::NOT_FOUND)
        << "replica " << replica;
    EXPECT_EQ(SnapshotStatus(replica, "", "repl-gone"),
              grpc::StatusCode::NOT_FOUND)
        << "replica " << replica;
    grpc::ClientContext open_ctx;
    v1::OpenRunRequest open;
    open.set_snapshot_id(id);
    v1::OpenRunResponse opened;
    EXPECT_EQ(Stub(replica)->OpenRun(&open_ctx, open, &opened).error_code(),
              grpc::StatusCode::NOT_FOUND)
        << "replica " << replica;
  }
}

// The repair loop counts the run's consecutive rejects, not a replica's:
// the breaker opens after max_consecutive_rejects wherever the calls went,
// stays open everywhere, and a reset anywhere closes it.
TEST_F(ReplicasTest, RepairLoopCountsAttemptsAcrossReplicas) {
  const v1::OpenRunResponse run = OpenTestRun(/*max_rejects=*/3);
  for (int attempt = 1; attempt <= 3; ++attempt) {
    const v1::ValidateToolCallResponse r =
        Validate(Next(), run, kInvalidLookup);
    EXPECT_NE(r.decision(), v1::DECISION_ALLOW) << r.DebugString();
    EXPECT_EQ(r.attempt(), attempt) << r.DebugString();
    EXPECT_EQ(r.attempts_left(), 3 - attempt) << r.DebugString();
  }
  for (int replica = 0; replica < kReplicas; ++replica) {
    const v1::ValidateToolCallResponse r = Validate(replica, run, kValidLookup);
    EXPECT_EQ(r.decision(), v1::DECISION_STOP) << "replica " << replica;
    EXPECT_EQ(r.stop_reason(), "misformat_circuit_open")
        << "replica " << replica;
  }
  ASSERT_TRUE(RunRpc(2, run, /*close=*/false).ok());
  for (int replica = 0; replica < kReplicas; ++replica) {
    EXPECT_EQ(Validate(replica, run, kValidLookup).decision(),
              v1::DECISION_ALLOW)
        << "replica " << replica;
  }
}

// The kill switch counts the run's invalid outputs, wherever they were
// reported: once tripped, writes are refused on every replica, reads pass.
TEST_F(ReplicasTest, KillSwitchTripsForTheRunOnEveryReplica) {
  const v1::OpenRunResponse run =
      OpenTestRun(/*max_rejects=*/20, /*threshold=*/3);
  for (int i = 0; i < 3; ++i) {
    const int replica = Next();
    const v1::ValidateToolOutputResponse r =
        Output(replica, run, "<html><body>Down for maintenance</body></html>");
    EXPECT_EQ(r.verdict(), v1::OUTPUT_VERDICT_INVALID) << r.DebugString();
    EXPECT_EQ(r.read_only(), i == 2) << "output " << i << " on " << replica;
  }
  for (int replica = 0; replica < kReplicas; ++replica) {
    const v1::ValidateToolCallResponse write =
        Validate(replica, run, kSendMail);
    EXPECT_EQ(write.decision(), v1::DECISION_REJECT) << "replica " << replica;
    EXPECT_EQ(write.stop_reason(), "kill_switch_read_only")
        << "replica " << replica;
    EXPECT_EQ(Validate(replica, run, kValidLookup).decision(),
              v1::DECISION_ALLOW)
        << "replica " << replica;
  }
  ASSERT_TRUE(RunRpc(0, run, /*close=*/false).ok());
  for (int replica = 0; replica < kReplicas; ++replica) {
    EXPECT_EQ(Validate(replica, run, kSendMail).decision(),
              v1::DECISION_ALLOW)
        << "replica " << replica;
  }
}

// Outputs reported concurrently on different replicas are each counted
// once: the run turns read-only at exactly its threshold-th invalid one.
TEST_F(ReplicasTest, ConcurrentInvalidOutputsTripTheKillSwitchOnce) {
  const v1::OpenRunResponse run =
      OpenTestRun(/*max_rejects=*/20, /*threshold=*/3);
  std::atomic<int> read_only{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 10; ++i) {
    threads.emplace_back([&, i] {
      if (Output(i, run, "<html>down</html>").read_only()) ++read_only;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(read_only.load(), 8);  // The 3rd to the 10th.
}

// Concurrent misformatted calls on different replicas each count once:
// attempts 1..max are each handed out once, every other call STOPs.
TEST_F(ReplicasTest, ConcurrentRejectsCountOnceEach) {
  const v1::OpenRunResponse run = OpenTestRun(/*max_rejects=*/3);
  std::mutex mu;
  std::vector<int> attempts;
  std::atomic<int> stopped{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 12; ++i) {
    threads.emplace_back([&, i] {
      const v1::ValidateToolCallResponse r = Validate(i, run, kInvalidLookup);
      if (r.stop_reason() == "misformat_circuit_open") {
        ++stopped;
      } else {
        std::lock_guard<std::mutex> lock(mu);
        attempts.push_back(r.attempt());
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::sort(attempts.begin(), attempts.end());
  EXPECT_EQ(attempts, std::vector<int>({1, 2, 3}));
  EXPECT_EQ(stopped.load(), 9);
}

// A budget of N calls allows N calls in the run in total, however many
// replicas the concurrent calls reach.
TEST_F(ReplicasTest, CallBudgetHoldsAcrossReplicasUnderConcurrency) {
  const v1::OpenRunResponse run = OpenTestRun();
  std::atomic<int> allowed{0}, exhausted{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 50; ++i) {
    threads.emplace_back([&, i] {
      const v1::ValidateToolCallResponse r = Validate(i, run, kSendMail);
      if (r.decision() == v1::DECISION_ALLOW) ++allowed;
      if (Code(r) == "call_budget_exhausted") ++exhausted;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(allowed.load(), 3);
  EXPECT_EQ(exhausted.load(), 47);
  for (int replica = 0; replica < kReplicas; ++replica) {
    EXPECT_EQ(Code(Validate(replica, run, kSendMail)), "call_budget_exhausted")
        << "replica " << replica;
  }
  ASSERT_TRUE(RunRpc(1, run, /*close=*/false).ok());  // Budgets are kept.
  EXPECT_EQ(Code(Validate(2, run, kSendMail)), "call_budget_exhausted");
}

// An approver decides on any replica; an agent waiting on another replica
// hears it at once; the approved call ALLOWs exactly once in total.
TEST_F(ReplicasTest, ApprovalDecidedElsewhereWakesWaiterAndAllowsOnce) {
  const v1::OpenRunResponse run = OpenTestRun();
  const std::string wire = Call("wire_money", R"({"amount":77})");
  const v1::ValidateToolCallResponse asked = Validate(0, run, wire);
  ASSERT_EQ(asked.decision(), v1::DECISION_NEEDS_APPROVAL)
      << asked.DebugString();
  const std::string id = asked.approval_id();
  // The same call on another replica is the same pending request.
  EXPECT_EQ(Validate(1, run, wire).approval_id(), id);
  EXPECT_EQ(Code(Validate(2, run, wire, id)), "approval_pending");
  std::atomic<bool> awaited{false};
  Clock::time_point answered;
  std::thread waiter([&] {
    EXPECT_EQ(Await(2, run, id, 30000), v1::APPROVAL_STATE_APPROVED);
    answered = Clock::now();
    awaited = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ASSERT_FALSE(awaited.load()) << "the wait ended before any decision";
  v1::DecideApprovalResponse decided;
  grpc::Status s = Decide(1, id, &decided);
  const Clock::time_point decided_at = Clock::now();
  waiter.join();
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(decided.approval().state(), v1::APPROVAL_STATE_APPROVED);
  EXPECT_LT(answered - decided_at, std::chrono::seconds(2));

  std::atomic<int> allowed{0}, used{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 32; ++i) {
    threads.emplace_back([&, i] {
      const v1::ValidateToolCallResponse r = Validate(i, run, wire, id);
      if (r.decision() == v1::DECISION_ALLOW) ++allowed;
      if (Code(r) == "approval_used") ++used;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(allowed.load(), 1);
  EXPECT_EQ(used.load(), 31);
}

// A replica that dies mid-run (OOM, node loss) loses nothing of the run:
// the attempt count and the budget spent carry on on the other replicas.
TEST_F(ReplicasTest, RunSurvivesAReplicaKilledMidRun) {
  const v1::OpenRunResponse run = OpenTestRun(/*max_rejects=*/5);
  EXPECT_EQ(Validate(0, run, kSendMail).decision(), v1::DECISION_ALLOW);
  EXPECT_EQ(Validate(1, run, kSendMail).decision(), v1::DECISION_ALLOW);
  EXPECT_EQ(Validate(2, run, kInvalidLookup).attempt(), 1);
  EXPECT_EQ(Validate(1, run, kInvalidLookup).attempt(), 2);

  ASSERT_EQ(kill(servers_[1]->pid(), SIGKILL), 0);
  for (int i = 0; i < 100 && servers_[1]->Alive(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_FALSE(servers_[1]->Alive());

  EXPECT_EQ(Validate(0, run, kInvalidLookup).attempt(), 3);
  const v1::ValidateToolCallResponse fourth = Validate(2, run, kInvalidLookup);
  EXPECT_EQ(fourth.attempt(), 4);
  EXPECT_EQ(fourth.attempts_left(), 1);
  EXPECT_EQ(Validate(0, run, kSendMail).decision(), v1::DECISION_ALLOW);
  EXPECT_EQ(Code(Validate(2, run, kSendMail)), "call_budget_exhausted");
  EXPECT_EQ(Code(Validate(0, run, kSendMail)), "call_budget_exhausted");
}

// A closed run is gone on every replica, not just where it was closed,
// even on replicas that served it before (and may hold its record).
TEST_F(ReplicasTest, ClosedRunIsUnknownOnEveryReplica) {
  const v1::OpenRunResponse run = OpenTestRun();
  for (int replica = 0; replica < kReplicas; ++replica) {
    EXPECT_EQ(Validate(replica, run, kValidLookup).decision(),
              v1::DECISION_ALLOW);
  }
  ASSERT_TRUE(RunRpc(1, run, /*close=*/true).ok());
  for (int replica = 0; replica < kReplicas; ++replica) {
    EXPECT_EQ(RunStatuses(replica, run),
              std::vector<grpc::StatusCode>(4, grpc::StatusCode::NOT_FOUND))
        << "replica " << replica;
  }
}

// A run's token is checked against the shared run on every replica, also
// on replicas that served the run before: a wrong one never falls back to
// anything.
TEST_F(ReplicasTest, WrongTokenIsRefusedOnEveryReplica) {
  v1::OpenRunResponse run = OpenTestRun();
  for (int replica = 0; replica < kReplicas; ++replica) {
    EXPECT_EQ(Validate(replica, run, kValidLookup).decision(),
              v1::DECISION_ALLOW);
  }
  std::string token = run.run_token();
  token.back() = token.back() == '0' ? '1' : '0';
  run.set_run_token(token);
  for (int replica = 0; replica < kReplicas; ++replica) {
    EXPECT_EQ(RunStatuses(replica, run),
              std::vector<grpc::StatusCode>(
                  4, grpc::StatusCode::PERMISSION_DENIED))
        << "replica " << replica;
  }
}

// --max_waits_per_run bounds the AwaitApproval calls of a run, not of a
// run on one replica: one agent cannot hold more waiting slots by
// spreading its waits over the replicas.
TEST_F(ReplicasTest, WaitsPerRunCountAcrossReplicas) {
  const v1::OpenRunResponse run = OpenTestRun();
  const v1::ValidateToolCallResponse asked =
      Validate(0, run, Call("wire_money", R"({"amount":5})"));
  ASSERT_EQ(asked.decision(), v1::DECISION_NEEDS_APPROVAL);
  std::atomic<int> waited{0}, refused{0};
  std::vector<std::thread> waiters;
  for (int i = 0; i < 14; ++i) {  // The default cap is 4.
    waiters.emplace_back([&, i] {
      grpc::ClientContext ctx;
      v1::AwaitApprovalRequest req;
      req.set_run_id(run.run_id());
      req.set_run_token(run.run_token());
      req.set_approval_id(asked.approval_id());
      req.set_timeout_ms(2000);
      v1::AwaitApprovalResponse resp;
      const grpc::Status s = Stub(i)->AwaitApproval(&ctx, req, &resp);
      if (s.ok() && resp.state() == v1::APPROVAL_STATE_PENDING) ++waited;
      if (s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) ++refused;
    });
  }
  for (std::thread& t : waiters) t.join();
  EXPECT_EQ(waited.load(), 4);
  EXPECT_EQ(refused.load(), 10);
}

}  // namespace
}  // namespace toolgate
