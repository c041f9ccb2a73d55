// Call budgets: per tool, per class, all or none per turn, and
// reservations given back. (Exactness under concurrency is the run's
// commit: core/state and core/engine/run_concurrency_test.)
#include "core/run/call_budget.h"

#include "gtest/gtest.h"

namespace toolgate {
namespace {

ToolSpec Spec(const std::string& name, SideEffect side_effect, int budget) {
  ToolSpec tool;
  tool.name = name;
  tool.side_effect = side_effect;
  tool.policy.max_calls_per_run = budget;
  return tool;
}

BudgetCharge Tool(const std::string& name, SideEffect side_effect, int budget,
                  const RunSettings& settings = RunSettings()) {
  return ChargeOf(Spec(name, side_effect, budget), settings);
}

RunSettings WriteClassBudget(int limit) {
  RunSettings settings;
  settings.max_calls_per_run_by_class[SideEffect::kWrite] = limit;
  return settings;
}

TEST(CallBudget, ToolBudgetCountsOnlyThatTool) {
  const BudgetCharge refund = Tool("refund", SideEffect::kWrite, 2);
  const BudgetCharge lookup = Tool("lookup", SideEffect::kRead, 0);
  CallBudget budget;
  EXPECT_EQ(budget.Reserve({refund}), -1);
  EXPECT_EQ(budget.Reserve({refund}), -1);
  EXPECT_EQ(budget.Reserve({refund}), 0);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(budget.Reserve({lookup}), -1);
  EXPECT_EQ(budget.used("refund"), 2);
}

TEST(CallBudget, ClassBudgetCountsEveryToolOfTheClass) {
  const RunSettings settings = WriteClassBudget(2);
  const BudgetCharge a = Tool("a", SideEffect::kWrite, 0, settings);
  const BudgetCharge b = Tool("b", SideEffect::kWrite, 0, settings);
  const BudgetCharge read = Tool("r", SideEffect::kRead, 0, settings);
  const BudgetCharge destroy = Tool("d", SideEffect::kDestructive, 0, settings);
  CallBudget budget;
  EXPECT_EQ(budget.Reserve({a}), -1);
  EXPECT_EQ(budget.Reserve({b}), -1);
  EXPECT_EQ(budget.Reserve({a}), 0);
  EXPECT_EQ(budget.Reserve({read, destroy}), -1);  // Other classes: free.
}

TEST(CallBudget, ATurnReservesAllOrNone) {
  const BudgetCharge a = Tool("a", SideEffect::kWrite, 0, WriteClassBudget(2));
  CallBudget budget;
  // Three calls in one turn, room for two: the third is named, none taken.
  EXPECT_EQ(budget.Reserve({a, a, a}), 2);
  EXPECT_EQ(budget.Reserve({a, a}), -1);
  EXPECT_EQ(budget.Reserve({a}), 0);
}

TEST(CallBudget, ReleaseGivesTheReservationBack) {
  const BudgetCharge refund =
      Tool("refund", SideEffect::kWrite, 1, WriteClassBudget(1));
  CallBudget budget;
  ASSERT_EQ(budget.Reserve({refund}), -1);
  budget.Release({refund});
  EXPECT_EQ(budget.used("refund"), 0);
  EXPECT_EQ(budget.Reserve({refund}), -1);
  EXPECT_EQ(budget.Reserve({refund}), 0);
}

TEST(CallBudget, HasCallBudget) {
  EXPECT_TRUE(HasCallBudget(Spec("t", SideEffect::kRead, 1), RunSettings()));
  EXPECT_FALSE(HasCallBudget(Spec("t", SideEffect::kRead, 0), RunSettings()));
  EXPECT_TRUE(
      HasCallBudget(Spec("t", SideEffect::kWrite, 0), WriteClassBudget(3)));
  EXPECT_FALSE(
      HasCallBudget(Spec("t", SideEffect::kRead, 0), WriteClassBudget(3)));
  const BudgetCharge charge =
      Tool("t", SideEffect::kWrite, 4, WriteClassBudget(3));
  EXPECT_EQ(charge.tool_limit, 4);
  EXPECT_EQ(charge.class_limit, 3);
}

}  // namespace
}  // namespace toolgate
