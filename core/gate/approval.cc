#include "core/gate/approval.h"

namespace toolgate {

void RequireApproval(GateResult* result) {
  for (const CheckedCall& call : result->calls) {
    result->needs_approval |=
        call.valid && call.tool->spec.policy.requires_approval;
  }
}

}  // namespace toolgate
