// Stages "resolve tool", "schema", "policy" (the tool's own) and "decide":
// core/gate's stages run over the call's context.
//
// Each takes call.gate as the stage before left it and adds its part (see
// core/gate/resolve_tools.h, check_arguments.h, approval.h, decide.h). A
// caller that went away mid-check is the Status CANCELLED or
// DEADLINE_EXCEEDED, never a decision. Decide also writes the decision
// into call.response: decision, stop_reason, violations, and a report of
// each call (for an ALLOW, exactly the arguments that were validated, in
// canonical form). The calls' id, name, source and repairs move into
// those reports: a stage after Decide reads them from call.response.
//
// Run policies (kill_switch.h; later argument policy, approvals, budgets)
// go between RequireApproval and Decide and speak through call.gate's
// needs_approval and vetoes.
#ifndef TOOLGATE_CORE_PIPELINE_GATE_STAGES_H_
#define TOOLGATE_CORE_PIPELINE_GATE_STAGES_H_

#include "absl/status/status.h"
#include "core/pipeline/call_context.h"

namespace toolgate {
namespace pipeline {

absl::Status ResolveTools(CallContext& call);
absl::Status CoerceArguments(CallContext& call);
absl::Status CheckArguments(CallContext& call);
// core/gate/argument_policy.h, with the run's context and protected texts.
absl::Status CheckArgumentPolicy(CallContext& call);
absl::Status RequireApproval(CallContext& call);
absl::Status Decide(CallContext& call);

}  // namespace pipeline
}  // namespace toolgate

#endif  // TOOLGATE_CORE_PIPELINE_GATE_STAGES_H_
