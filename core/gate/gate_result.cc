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

}  // namespace toolgate
