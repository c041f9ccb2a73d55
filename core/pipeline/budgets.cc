#include "core/pipeline/budgets.h"

#include <string>

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
  // A turn waiting for approval spends nothing; one presenting an approval
  // may, once the commit has consumed it.
  const bool waits = gate.needs_approval &&
                     call.plan.approval != state::CallPlan::Approval::kConsume;
  if (waits || !Allowable(gate)) return call.NotApplicable();
  const RunSettings& settings = call.target.snapshot->settings();
  bool budgeted = false;
  for (const CheckedCall& c : gate.calls) {
    budgeted |= HasCallBudget(c.tool->spec, settings);
  }
  if (!budgeted) return call.NotApplicable();  // Most turns: nothing to count.
  if (call.target.run == nullptr) {
    for (size_t i = 0; i < gate.calls.size(); ++i) {
      const ToolSpec& tool = gate.calls[i].tool->spec;
      if (!HasCallBudget(tool, settings)) continue;
      Veto(gate, tool, static_cast<int>(i),
           "this tool's calls are counted per run: call it in a run "
           "(OpenRun)");
    }
    return absl::OkStatus();
  }
  call.plan.charges.reserve(gate.calls.size());
  for (const CheckedCall& c : gate.calls) {
    call.plan.charges.push_back(ChargeOf(c.tool->spec, settings));
  }
  return absl::OkStatus();
}

absl::Status ApplyBudgetOutcome(CallContext& call) {
  const int refused = call.outcome.budget_refused;
  const bool charged = !call.plan.charges.empty();
  if (refused < 0) {
    if (charged && call.outcome.decision == Decision::kAllow &&
        !call.outcome.budget_spent) {
      return absl::InternalError(
          "the run state store allowed a budgeted call without spending "
          "its budget");
    }
    return absl::OkStatus();
  }
  if (static_cast<size_t>(refused) >= call.gate.calls.size()) {
    return absl::InternalError(
        "the run state store refused a call the turn does not have");
  }
  const ToolSpec& tool = call.gate.calls[refused].tool->spec;
  Veto(call.gate, tool, refused,
       absl::StrCat("run ", call.target.run->id(),
                    " has used its call budget for ", tool.name,
                    " (policy.max_calls_per_run ",
                    tool.policy.max_calls_per_run,
                    ", or its side effect's "
                    "settings.max_calls_per_run_by_class)"));
  return absl::OkStatus();
}

void GiveBackSpending(CallContext& call) {
  if (!call.committed || call.target.run == nullptr) return;
  call.services.run_state.RefundCall(*call.target.run, call.plan,
                                     call.outcome);
  call.committed = false;
}

}  // namespace pipeline
}  // namespace toolgate
