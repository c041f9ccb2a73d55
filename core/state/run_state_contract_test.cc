// The run state contract (run_state_contract.h): the repair loop's
// attempts and breaker, the kill switch, call budgets and refunds, on
// every store.
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "core/state/run_state_contract.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace state {
namespace contract {
namespace {

TEST_P(RunStateContract, MisformattedRejectsOpenTheBreakerThenStop) {
  struct Step {
    CallPlan plan;
    Decision decision;
    bool recorded;
    int attempt, left;
  };
  const Step steps[] = {
      {Misformatted(), Decision::kReject, true, 1, 2},
      {Allowable(), Decision::kAllow, true, 0, 3},
      {Misformatted(), Decision::kReject, true, 1, 2},
      {Plan(), Decision::kReject, false, 0, 0},  // Not a misformat.
      {Misformatted(), Decision::kReject, true, 2, 1},
      {Misformatted(), Decision::kReject, true, 3, 0},
      {Allowable(), Decision::kStop, false, 3, 0},  // Open: nothing happens.
      {Charged(1), Decision::kStop, false, 3, 0},
  };
  for (const Step& s : steps) {
    const CallOutcome out = Commit(s.plan);
    EXPECT_EQ(out.decision, s.decision);
    EXPECT_EQ(out.stop, s.decision == Decision::kStop);
    EXPECT_EQ(out.loop_recorded, s.recorded);
    if (s.recorded || out.stop) {
      EXPECT_EQ(out.loop.attempt, s.attempt);
      EXPECT_EQ(out.loop.attempts_left, s.left);
    }
    EXPECT_FALSE(out.budget_spent);
  }
  EXPECT_TRUE(store_->BreakerOpenHint(*run_) ||
              GetParam().name != std::string("memory"));
  ASSERT_TRUE(store_->Reset(*run_).ok());
  EXPECT_EQ(Commit(Charged(1)).decision, Decision::kAllow);  // Budget kept.
  EXPECT_EQ(Commit(Charged(1)).budget_refused, 0);
}

TEST_P(RunStateContract, KillSwitchVetoesWritesUntilReset) {
  CallPlan read = Allowable();
  CallPlan write = Allowable();
  write.has_write = true;
  EXPECT_EQ(*store_->RecordOutput(*run_, kRunToken, output::OutputVerdict::kInvalid),
            false);
  EXPECT_EQ(*store_->RecordOutput(*run_, kRunToken, output::OutputVerdict::kInvalid),
            true);
  CallOutcome vetoed = Commit(Charged(5, write));
  EXPECT_TRUE(vetoed.read_only);
  EXPECT_EQ(vetoed.decision, Decision::kReject);
  EXPECT_FALSE(vetoed.loop_recorded);  // The run's own refusal: no misformat.
  EXPECT_FALSE(vetoed.budget_spent);
  EXPECT_EQ(Commit(read).decision, Decision::kAllow);
  ASSERT_TRUE(store_->Reset(*run_).ok());
  CallOutcome after = Commit(write);
  EXPECT_FALSE(after.read_only);
  EXPECT_EQ(after.decision, Decision::kAllow);
}

TEST_P(RunStateContract, RefundGivesBackBudgetAndApproval) {
  const std::string id = Approve(
      Commit(WithApproval(CallPlan::Approval::kRequest)).approval_id);
  const CallPlan plan =
      Charged(1, WithApproval(CallPlan::Approval::kConsume, id));
  const CallOutcome spent = Commit(plan);
  ASSERT_EQ(spent.decision, Decision::kAllow);
  ASSERT_TRUE(spent.budget_spent);
  store_->RefundCall(*run_, plan, spent);
  // As if the call never happened: both can be spent again, once.
  EXPECT_EQ(Commit(plan).decision, Decision::kAllow);
  EXPECT_EQ(Commit(plan).decision, Decision::kReject);
}

TEST_P(RunStateContract, FiftyRacingCallsOnABudgetOfThreeAllowThree) {
  std::atomic<int> allowed{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < 50; ++i) {
    threads.emplace_back([&] {
      while (!go.load()) std::this_thread::yield();
      absl::StatusOr<CallOutcome> out = store_->CommitCall(*run_, Charged(3));
      if (out.ok() && out->decision == Decision::kAllow) ++allowed;
    });
  }
  go.store(true);
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(allowed.load(), 3);
}

INSTANTIATE_TEST_SUITE_P(
    Stores, RunStateContract, testing::ValuesIn(AllStores()),
    [](const testing::TestParamInfo<StoreFactory>& info) {
      return std::string(info.param.name);
    });

}  // namespace
}  // namespace contract
}  // namespace state
}  // namespace toolgate
