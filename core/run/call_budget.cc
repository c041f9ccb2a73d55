#include "core/run/call_budget.h"

namespace toolgate {
namespace {

size_t ClassIndex(SideEffect side_effect) {
  return static_cast<size_t>(side_effect);
}

}  // namespace

bool HasCallBudget(const ToolSpec& tool, const RunSettings& settings) {
  return tool.policy.max_calls_per_run > 0 ||
         settings.max_calls_per_run_by_class.count(tool.side_effect) > 0;
}

BudgetCharge ChargeOf(const ToolSpec& tool, const RunSettings& settings) {
  BudgetCharge charge;
  charge.tool = tool.name;
  charge.side_effect = tool.side_effect;
  charge.tool_limit = tool.policy.max_calls_per_run;
  auto it = settings.max_calls_per_run_by_class.find(tool.side_effect);
  if (it != settings.max_calls_per_run_by_class.end()) {
    charge.class_limit = it->second;
  }
  return charge;
}

void CallBudget::Take(const BudgetCharge& charge, int delta) {
  if (charge.class_limit > 0) class_used_[ClassIndex(charge.side_effect)] += delta;
  if (charge.tool_limit > 0) tool_used_[charge.tool] += delta;
}

int CallBudget::Reserve(absl::Span<const BudgetCharge> charges) {
  for (size_t i = 0; i < charges.size(); ++i) {
    const BudgetCharge& c = charges[i];
    auto tool = tool_used_.find(c.tool);
    const bool over =
        (c.class_limit > 0 &&
         class_used_[ClassIndex(c.side_effect)] >= c.class_limit) ||
        (c.tool_limit > 0 && tool != tool_used_.end() &&
         tool->second >= c.tool_limit);
    if (over) {
      // All or none: give back what this turn took so far.
      for (size_t j = 0; j < i; ++j) Take(charges[j], -1);
      return static_cast<int>(i);
    }
    Take(c, +1);
  }
  return -1;
}

void CallBudget::Release(absl::Span<const BudgetCharge> charges) {
  for (const BudgetCharge& c : charges) Take(c, -1);
}

int CallBudget::used(const std::string& tool) const {
  auto it = tool_used_.find(tool);
  return it == tool_used_.end() ? 0 : it->second;
}

}  // namespace toolgate
