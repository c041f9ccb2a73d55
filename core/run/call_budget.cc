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

CallBudget::CallBudget(const RunSettings& settings) {
  for (const auto& [side_effect, limit] : settings.max_calls_per_run_by_class) {
    class_limits_[ClassIndex(side_effect)] = limit;
  }
}

int CallBudget::ClassLimit(SideEffect side_effect) const {
  return class_limits_[ClassIndex(side_effect)];
}

void CallBudget::Take(const ToolSpec& tool, int delta) {
  if (ClassLimit(tool.side_effect) > 0) {
    class_used_[ClassIndex(tool.side_effect)] += delta;
  }
  if (tool.policy.max_calls_per_run > 0) tool_used_[tool.name] += delta;
}

int CallBudget::Reserve(absl::Span<const ToolSpec* const> tools) {
  absl::MutexLock lock(&mu_);
  for (size_t i = 0; i < tools.size(); ++i) {
    const ToolSpec& tool = *tools[i];
    const int class_limit = ClassLimit(tool.side_effect);
    const int tool_limit = tool.policy.max_calls_per_run;
    const bool over =
        (class_limit > 0 &&
         class_used_[ClassIndex(tool.side_effect)] >= class_limit) ||
        (tool_limit > 0 && tool_used_[tool.name] >= tool_limit);
    if (over) {
      // All or none: give back what this turn took so far.
      for (size_t j = 0; j < i; ++j) Take(*tools[j], -1);
      return static_cast<int>(i);
    }
    Take(tool, +1);
  }
  return -1;
}

void CallBudget::Release(absl::Span<const ToolSpec* const> tools) {
  absl::MutexLock lock(&mu_);
  for (const ToolSpec* tool : tools) Take(*tool, -1);
}

int CallBudget::used(const std::string& tool) const {
  absl::MutexLock lock(&mu_);
  auto it = tool_used_.find(tool);
  return it == tool_used_.end() ? 0 : it->second;
}

}  // namespace toolgate
