#include "core/engine/validate_tool_call.h"

#include <utility>

#include "absl/cleanup/cleanup.h"

#include "core/pipeline/approvals.h"
#include "core/pipeline/audit_call.h"
#include "core/pipeline/breaker.h"
#include "core/pipeline/budgets.h"
#include "core/pipeline/call_context.h"
#include "core/pipeline/gate_stages.h"
#include "core/pipeline/kill_switch.h"
#include "core/pipeline/read_calls.h"
#include "core/pipeline/repair_loop.h"
#include "core/pipeline/resolve.h"
#include "core/pipeline/run_commit.h"

namespace toolgate {
namespace {

using pipeline::Stage;

// THE PIPELINE. One ValidateToolCall runs these stages in this order; a
// new stage (an argument policy, approvals, a call budget) is one more
// component under core/pipeline/ and one more line here. Policies go
// between "policy (tool)" and "decide": they may add violations or ask
// for approval (CallContext::gate), and only "decide" turns what all
// stages found into a decision.
constexpr Stage kValidateToolCall[] = {
    // Snapshot and run from the request, an audit id. Caller errors stop
    // here as Status.
    {"resolve", pipeline::Resolve},
    // A run whose breaker is open is STOPped without reading its output.
    {"breaker", pipeline::CheckBreaker},
    // Streamed output: its events assembled into native or text output, or
    // the stream refused (never read further).
    {"assemble stream", pipeline::AssembleStream},
    // Text output: the authoritative candidate calls.
    {"extract candidates", pipeline::ExtractCandidates},
    // Each candidate repaired (if the policy allows) and parsed strictly;
    // native output parsed strictly.
    {"repair + strict parse", pipeline::ParseCalls},
    {"resolve tool", pipeline::ResolveTools},
    // Only the coercions the tool's policy lists, and its text rules' HTML
    // stripping, before the schema.
    {"policy (coerce)", pipeline::CoerceArguments},
    {"schema", pipeline::CheckArguments},
    // Bindings, argument rules, secrets, leaks, parallel calls.
    {"policy (arguments)", pipeline::CheckArgumentPolicy},
    {"policy (tool)", pipeline::RequireApproval},
    {"policy (run kill switch)", pipeline::ApplyKillSwitch},
    // A human's approval asked for, or one presented spent (run only).
    {"policy (approval)", pipeline::ApplyApprovals},
    // Per-run call budgets, spent only by a turn about to be ALLOWed.
    {"policy (call budgets)", pipeline::SpendCallBudgets},
    // In a run, the three stages above only plan: the run's breaker, kill
    // switch, approval and budgets change here, in one atomic step.
    {"commit run state", pipeline::CommitRunState},
    {"decide", pipeline::Decide},
    // The run's breaker count and the repair prompt.
    {"repair loop", pipeline::RecordLoop},
    {"audit", pipeline::AuditCall, Stage::When::kAlways},
};

}  // namespace

absl::StatusOr<ValidateCallResponse> HandleValidateToolCall(
    const Services& services, const ValidateCallRequest& request) {
  pipeline::CallContext call(services, request);
  // A call that ends without an answer (a Status, or an exception the
  // engine turns into INTERNAL) gives back what its commit spent.
  absl::Cleanup give_back = [&call] { pipeline::GiveBackSpending(call); };
  if (absl::Status status = pipeline::RunStages(kValidateToolCall, call);
      !status.ok()) {
    return status;
  }
  std::move(give_back).Cancel();
  return std::move(call.response);
}

}  // namespace toolgate
