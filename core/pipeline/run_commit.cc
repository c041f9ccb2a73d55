#include "core/pipeline/run_commit.h"

#include "core/gate/decide.h"
#include "core/pipeline/approvals.h"
#include "core/pipeline/breaker.h"
#include "core/pipeline/budgets.h"
#include "core/pipeline/kill_switch.h"

namespace toolgate {
namespace pipeline {
namespace {

// Whether a REJECT of the turn counts toward the breaker: a violation
// other than the run's own refusals (kill switch, budget, approvals),
// which are all added by the commit, after this.
bool Misformatted(const GateResult& gate) {
  const auto misformat = [](const Violation& v) {
    return v.code != kKillSwitchReadOnly && v.code != kCallBudgetExhausted &&
           !IsApprovalCode(v.code);
  };
  for (const Violation& v : gate.violations) {
    if (misformat(v)) return true;
  }
  for (const Violation& v : gate.vetoes) {
    if (misformat(v)) return true;
  }
  return false;
}

absl::Status ApplyOutcome(CallContext& call) {
  const state::CallOutcome& outcome = call.outcome;
  if (outcome.stop) {
    // As if the breaker stage had seen it: no call of the output answered.
    call.gate = GateResult();
    StopAtOpenBreaker(call);
    return absl::OkStatus();
  }
  if (outcome.read_only) VetoWriteCalls(call);
  if (!call.plan.allowable || (outcome.read_only && call.plan.has_write)) {
    return absl::OkStatus();  // Not open: approvals, budgets not looked at.
  }
  ApplyApprovalOutcome(call);
  return ApplyBudgetOutcome(call);
}

}  // namespace

absl::Status CommitRunState(CallContext& call) {
  Run* run = call.target.run.get();
  if (run == nullptr) return call.NotApplicable();
  state::CallPlan& plan = call.plan;
  plan.run_token = call.request.run_token;
  plan.allowable = Allowable(call.gate);
  plan.misformat = Misformatted(call.gate);
  const bool may_count =
      plan.misformat || plan.approval == state::CallPlan::Approval::kParallel;
  // Asking gRPC is costly, so only where a reject would count.
  if (absl::Status gone = may_count ? call.request.cancel.CheckNow()
                                    : call.request.cancel.Check();
      !gone.ok()) {
    return gone;
  }
  absl::StatusOr<state::CallOutcome> outcome =
      call.services.run_state.CommitCall(*run, plan);
  if (!outcome.ok()) return outcome.status();
  call.outcome = *std::move(outcome);
  call.committed = true;
  return ApplyOutcome(call);
}

}  // namespace pipeline
}  // namespace toolgate
