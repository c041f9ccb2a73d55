// Stage "policy (approval)": the human in the loop for a run.
//
// Runs after every stage that can refuse the turn on its own (schema,
// argument policy, kill switch), so that only a turn that would otherwise
// be ALLOWed asks a human or spends an approval. When such a turn holds a
// call whose tool requires approval (approval.h set needs_approval):
//   - no run: NEEDS_APPROVAL with no approval id and a message saying a
//     run is required (an approval is bound to a run);
//   - more than one such call: parallel_not_allowed on the second and
//     later ones (an approval covers one call, so they come one per turn);
//   - no approval_id in the request: a new (or the identical pending)
//     approval request for (run, tool, canonical arguments); the answer is
//     NEEDS_APPROVAL with its id;
//   - an approval_id: consumed atomically (core/approval); on success the
//     turn no longer needs approval (decide may ALLOW it), otherwise it is
//     vetoed with approval_pending, approval_denied, approval_expired,
//     approval_used or approval_mismatch.
// An approval_id sent with a turn that needs none is ignored.
//
// In a run, the stage only plans (call.plan): the request or the
// consumption happens in the run's commit ("commit run state", atomic with
// the call budgets and the breaker), which then calls ApplyApprovalOutcome.
#ifndef TOOLGATE_CORE_PIPELINE_APPROVALS_H_
#define TOOLGATE_CORE_PIPELINE_APPROVALS_H_

#include "absl/status/status.h"
#include "core/pipeline/call_context.h"

namespace toolgate {
namespace pipeline {

absl::Status ApplyApprovals(CallContext& call);

// What the run's commit did about approvals, as the response and vetoes
// above describe it (only for a turn the commit found open).
void ApplyApprovalOutcome(CallContext& call);

// Whether `code` is one of the approval_* refusals (not a misformatted
// call: it does not count toward the run's breaker).
bool IsApprovalCode(absl::string_view code);

}  // namespace pipeline
}  // namespace toolgate

#endif  // TOOLGATE_CORE_PIPELINE_APPROVALS_H_
