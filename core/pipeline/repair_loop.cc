#include "core/pipeline/repair_loop.h"

#include "core/pipeline/approvals.h"
#include "core/pipeline/budgets.h"
#include "core/pipeline/kill_switch.h"
#include "core/pipeline/repair_prompt.h"

namespace toolgate {
namespace pipeline {
namespace {

// A write refused by the kill switch, a spent call budget or an approval
// not (yet) given is not a misformatted call: none counts toward the
// breaker (the stop_reason already tells the agent).
bool Misformatted(const ValidateCallResponse& response) {
  for (const Violation& v : response.violations) {
    if (v.code != kKillSwitchReadOnly && v.code != kCallBudgetExhausted &&
        !IsApprovalCode(v.code)) {
      return true;
    }
  }
  return false;
}

}  // namespace

absl::Status RecordLoop(CallContext& call) {
  ValidateCallResponse& response = call.response;
  Run* run = call.target.run.get();
  const bool rejected = response.decision == Decision::kReject;
  if (run == nullptr && !rejected) return call.NotApplicable();
  // Asking gRPC is costly, so only where a reject would count, not on the
  // ALLOW path.
  if (run != nullptr && rejected) {
    if (absl::Status gone = call.request.cancel.CheckNow(); !gone.ok()) {
      return gone;
    }
  }
  if (run != nullptr && (!rejected || Misformatted(response))) {
    const LoopState state = rejected ? run->RecordReject() : run->RecordAllow();
    response.attempt = state.attempt;
    response.attempts_left = state.attempts_left;
  }
  if (rejected) {
    // The family's syntax only for text it was asked to read in it.
    const extract::TextFormat format = call.kind == OutputKind::kText
                                           ? call.text_format
                                           : extract::TextFormat::kUnspecified;
    response.repair_prompt = BuildRepairPrompt(
        response.violations, response.attempt,
        run == nullptr ? 0 : run->max_consecutive_rejects(), format);
  }
  return absl::OkStatus();
}

}  // namespace pipeline
}  // namespace toolgate
