// Call budgets: per tool, per class, all or none per turn, exact under
// concurrency, and reservations given back.
#include "core/run/call_budget.h"

#include <atomic>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace toolgate {
namespace {

ToolSpec Tool(const std::string& name, SideEffect side_effect, int budget) {
  ToolSpec tool;
  tool.name = name;
  tool.side_effect = side_effect;
  tool.policy.max_calls_per_run = budget;
  return tool;
}

RunSettings WriteClassBudget(int limit) {
  RunSettings settings;
  settings.max_calls_per_run_by_class[SideEffect::kWrite] = limit;
  return settings;
}

TEST(CallBudget, ToolBudgetCountsOnlyThatTool) {
  const ToolSpec refund = Tool("refund", SideEffect::kWrite, 2);
  const ToolSpec lookup = Tool("lookup", SideEffect::kRead, 0);
  CallBudget budget{RunSettings()};
  EXPECT_EQ(budget.Reserve({&refund}), -1);
  EXPECT_EQ(budget.Reserve({&refund}), -1);
  EXPECT_EQ(budget.Reserve({&refund}), 0);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(budget.Reserve({&lookup}), -1);
  EXPECT_EQ(budget.used("refund"), 2);
}

TEST(CallBudget, ClassBudgetCountsEveryToolOfTheClass) {
  const ToolSpec a = Tool("a", SideEffect::kWrite, 0);
  const ToolSpec b = Tool("b", SideEffect::kWrite, 0);
  const ToolSpec read = Tool("r", SideEffect::kRead, 0);
  const ToolSpec destroy = Tool("d", SideEffect::kDestructive, 0);
  CallBudget budget(WriteClassBudget(2));
  EXPECT_EQ(budget.Reserve({&a}), -1);
  EXPECT_EQ(budget.Reserve({&b}), -1);
  EXPECT_EQ(budget.Reserve({&a}), 0);
  EXPECT_EQ(budget.Reserve({&read, &destroy}), -1);  // Other classes: free.
}

TEST(CallBudget, ATurnReservesAllOrNone) {
  const ToolSpec a = Tool("a", SideEffect::kWrite, 0);
  CallBudget budget(WriteClassBudget(2));
  // Three calls in one turn, room for two: the third is named, none taken.
  EXPECT_EQ(budget.Reserve({&a, &a, &a}), 2);
  EXPECT_EQ(budget.Reserve({&a, &a}), -1);
  EXPECT_EQ(budget.Reserve({&a}), 0);
}

TEST(CallBudget, ReleaseGivesTheReservationBack) {
  const ToolSpec refund = Tool("refund", SideEffect::kWrite, 1);
  CallBudget budget(WriteClassBudget(1));
  ASSERT_EQ(budget.Reserve({&refund}), -1);
  budget.Release({&refund});
  EXPECT_EQ(budget.used("refund"), 0);
  EXPECT_EQ(budget.Reserve({&refund}), -1);
  EXPECT_EQ(budget.Reserve({&refund}), 0);
}

TEST(CallBudget, HasCallBudget) {
  EXPECT_TRUE(HasCallBudget(Tool("t", SideEffect::kRead, 1), RunSettings()));
  EXPECT_FALSE(HasCallBudget(Tool("t", SideEffect::kRead, 0), RunSettings()));
  EXPECT_TRUE(
      HasCallBudget(Tool("t", SideEffect::kWrite, 0), WriteClassBudget(3)));
  EXPECT_FALSE(
      HasCallBudget(Tool("t", SideEffect::kRead, 0), WriteClassBudget(3)));
}

TEST(CallBudget, FiftyConcurrentCallsWithBudgetThreeAllowExactlyThree) {
  const ToolSpec refund = Tool("refund", SideEffect::kWrite, 3);
  CallBudget budget{RunSettings()};
  std::atomic<int> allowed{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 50; ++i) {
    threads.emplace_back([&] {
      if (budget.Reserve({&refund}) == -1) ++allowed;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(allowed.load(), 3);
}

}  // namespace
}  // namespace toolgate
