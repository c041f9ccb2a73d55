// Stage "policy (call budgets)": a turn the run would ALLOW spends one
// call of every budget its calls count against (core/run/call_budget.h),
// atomically; a turn past a budget is vetoed with call_budget_exhausted on
// the first call past it, and an approval it consumed is given back.
//
// Runs after every other policy stage and just before decide, so that only
// turns that would otherwise be ALLOWed spend budget. A stateless call of
// a budgeted tool is refused too: a per-run budget cannot be counted
// without a run. It can only refuse, never allow.
//
// In a run, the stage only plans the charges (call.plan); the run's commit
// ("commit run state") reserves them, and ApplyBudgetOutcome vetoes a turn
// they did not fit.
#ifndef TOOLGATE_CORE_PIPELINE_BUDGETS_H_
#define TOOLGATE_CORE_PIPELINE_BUDGETS_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/pipeline/call_context.h"

namespace toolgate {
namespace pipeline {

inline constexpr absl::string_view kCallBudgetExhausted =
    "call_budget_exhausted";

absl::Status SpendCallBudgets(CallContext& call);

// The call_budget_exhausted veto for a turn the commit found over budget;
// INTERNAL for an outcome that does not fit the plan (a broken store).
absl::Status ApplyBudgetOutcome(CallContext& call);

// Gives back the approval and the budget a call spent when it ends without
// a decision after spending them (the caller went away, or its audit
// record could not be written under audit_required): a call nobody gets
// an answer for must not use up its run.
void GiveBackSpending(CallContext& call);

}  // namespace pipeline
}  // namespace toolgate

#endif  // TOOLGATE_CORE_PIPELINE_BUDGETS_H_
