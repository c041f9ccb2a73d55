#include "core/state/memory_run_state.h"

namespace toolgate {
namespace state {

bool MemoryRunStateStore::BreakerOpenHint(const Run& run) const {
  return run.Current().breaker_open;
}

absl::Status MemoryRunStateStore::CommitOpenTurn(const Run& run,
                                                 RunState& state,
                                                 const CallPlan& plan,
                                                 CallOutcome* outcome) {
  outcome->decision = Decision::kAllow;
  switch (plan.approval) {
    case CallPlan::Approval::kNone:
      break;
    case CallPlan::Approval::kParallel:
      outcome->decision = Decision::kReject;
      return absl::OkStatus();
    case CallPlan::Approval::kRequest: {
      absl::StatusOr<Approval> requested =
          approvals_.Request(run.id(), plan.tool, plan.arguments_json,
                             run.context(), run.model());
      if (!requested.ok()) return requested.status();
      outcome->approval_id = requested->approval_id;
      outcome->decision = Decision::kNeedsApproval;
      return absl::OkStatus();
    }
    case CallPlan::Approval::kConsume:
      outcome->refused_approval = approvals_.Consume(
          run.id(), plan.approval_id, plan.tool, plan.arguments_json);
      if (!outcome->refused_approval.ok()) {
        outcome->decision = Decision::kReject;
        return absl::OkStatus();
      }
      outcome->approval_id = plan.approval_id;
      outcome->approval_consumed = true;
      break;
  }
  if (plan.charges.empty()) return absl::OkStatus();
  outcome->budget_refused = state.budget.Reserve(plan.charges);
  if (outcome->budget_refused < 0) {
    outcome->budget_spent = true;
    return absl::OkStatus();
  }
  outcome->decision = Decision::kReject;
  if (outcome->approval_consumed) {
    approvals_.Release(plan.approval_id);
    outcome->approval_consumed = false;
    outcome->approval_id.clear();
  }
  return absl::OkStatus();
}

absl::StatusOr<CallOutcome> MemoryRunStateStore::CommitCall(
    Run& run, const CallPlan& plan) {
  const int max_rejects = run.max_consecutive_rejects();
  return run.WithState([&](RunState& state) -> absl::StatusOr<CallOutcome> {
    CallOutcome outcome;
    if (state.breaker_open) {
      outcome.stop = true;
      outcome.decision = Decision::kStop;
      outcome.loop = state.Loop(max_rejects);
      return outcome;
    }
    outcome.read_only = state.health.read_only();
    const bool open = plan.allowable && !(outcome.read_only && plan.has_write);
    if (open) {
      if (absl::Status s = CommitOpenTurn(run, state, plan, &outcome);
          !s.ok()) {
        return s;
      }
    }
    const bool counts = plan.misformat ||
                        (open && plan.approval == CallPlan::Approval::kParallel);
    if (outcome.decision != Decision::kReject) {
      outcome.loop = state.RecordAllow(max_rejects);
      outcome.loop_recorded = true;
    } else if (counts) {
      outcome.loop = state.RecordReject(max_rejects);
      outcome.loop_recorded = true;
    }
    return outcome;
  });
}

void MemoryRunStateStore::RefundCall(Run& run, const CallPlan& plan,
                                     const CallOutcome& outcome) {
  if (outcome.approval_consumed) approvals_.Release(outcome.approval_id);
  if (!outcome.budget_spent) return;
  run.WithState([&](RunState& state) { state.budget.Release(plan.charges); });
}

absl::StatusOr<bool> MemoryRunStateStore::RecordOutput(
    Run& run, absl::string_view, output::OutputVerdict verdict) {
  return run.RecordOutput(verdict);
}

absl::Status MemoryRunStateStore::Reset(Run& run) {
  run.Reset();
  return absl::OkStatus();
}

}  // namespace state
}  // namespace toolgate
