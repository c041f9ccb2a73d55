#include "core/gate/gate_result.h"

namespace toolgate {

absl::string_view DecisionName(Decision d) {
  switch (d) {
    case Decision::kAllow:
      return "ALLOW";
    case Decision::kReject:
      return "REJECT";
    case Decision::kNeedsApproval:
      return "NEEDS_APPROVAL";
    case Decision::kStop:
      return "STOP";
  }
  return "REJECT";
}

bool StillWaiting(const GateOptions& options, GateResult* result) {
  if (options.cancel == nullptr) return true;
  result->interrupted = options.cancel->Check();
  return result->interrupted.ok();
}

}  // namespace toolgate
