#include "core/pipeline/budgets.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/gate/decide.h"
#include "core/run/call_budget.h"

namespace toolgate {
namespace pipeline {
namespace {

void Veto(GateResult& gate, const ToolSpec& tool, int call_index,
          std::string message) {
  Violation v;
  v.code = std::string(kCallBudgetExhausted);
  v.tool = tool.name;
  v.message = std::move(message);
  v.call_index = call_index;
  gate.vetoes.push_back(std::move(v));
  gate.veto_reason = std::string(kCallBudgetExhausted);
}

}  // namespace

absl::Status SpendCallBudgets(CallContext& call) {
  GateResult& gate = call.gate;
  if (gate.needs_approval || !Allowable(gate)) return call.NotApplicable();
  const RunSettings& settings = call.target.snapshot->settings();
  bool budgeted = false;
  for (const CheckedCall& c : gate.calls) {
    budgeted |= HasCallBudget(c.tool->spec, settings);
  }
  if (!budgeted) return call.NotApplicable();  // Most turns: nothing to count.
  std::vector<const ToolSpec*> tools;
  for (const CheckedCall& c : gate.calls) tools.push_back(&c.tool->spec);
  Run* run = call.target.run.get();
  if (run == nullptr) {
    for (size_t i = 0; i < tools.size(); ++i) {
      if (!HasCallBudget(*tools[i], settings)) continue;
      Veto(gate, *tools[i], static_cast<int>(i),
           "this tool's calls are counted per run: call it in a run "
           "(OpenRun)");
    }
    return absl::OkStatus();
  }
  const int refused = run->budget().Reserve(tools);
  if (refused < 0) {
    call.budget_spent = std::move(tools);
    return absl::OkStatus();
  }
  const ToolSpec& tool = *tools[refused];
  Veto(gate, tool, refused,
       absl::StrCat("run ", run->id(), " has used its call budget for ",
                    tool.name, " (policy.max_calls_per_run ",
                    tool.policy.max_calls_per_run,
                    ", or its side effect's "
                    "settings.max_calls_per_run_by_class)"));
  if (!call.approval_used.empty()) {
    call.services.approvals.Release(call.approval_used);
    call.approval_used.clear();
    call.response.approval_id.clear();
  }
  return absl::OkStatus();
}

void GiveBackSpending(CallContext& call) {
  if (!call.approval_used.empty()) {
    call.services.approvals.Release(call.approval_used);
    call.approval_used.clear();
  }
  if (!call.budget_spent.empty() && call.target.run != nullptr) {
    call.target.run->budget().Release(call.budget_spent);
    call.budget_spent.clear();
  }
}

}  // namespace pipeline
}  // namespace toolgate
