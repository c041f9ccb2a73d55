// Several replicas sharing one state store (issue 26), a run's state: the
// repair loop's attempts, the breaker, the kill switch, call budgets,
// approvals and waits behave as in one process whatever replica each call
// reaches, concurrent calls included. The fixture (replicas_fixture.h)
// sends each call to a chosen replica.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/replicas_fixture.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace replicas_testing {
namespace {

using Clock = std::chrono::steady_clock;

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
}  // namespace replicas_testing
}  // namespace toolgate
