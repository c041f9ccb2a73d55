// One ValidateToolCall as it moves through the pipeline's stages.
//
// A stage is a plain function over the CallContext: it reads what earlier
// stages left, adds its own part, and returns OK to go on. A non-OK Status
// is an infrastructure or caller error (unknown snapshot, caller gone) and
// ends the call with no decision; everything about the model's output is
// a value in `gate` or `response`. The sequence itself is written once, in
// core/engine/validate_tool_call.cc.
//
// A stage that settles the decision early (an open breaker: STOP) sets
// `decided_early`; the stages that read and judge the output are then
// skipped, and those marked kAlways (the audit) still run.
//
// The stage list is a constant array of function pointers: running it
// allocates nothing, and each stage costs one indirect call per output.
// With tracing on, each stage that applied to the call gets a child span.
#ifndef TOOLGATE_CORE_PIPELINE_CALL_CONTEXT_H_
#define TOOLGATE_CORE_PIPELINE_CALL_CONTEXT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/extract/extract.h"
#include "core/gate/calls.h"
#include "core/gate/gate_result.h"
#include "core/pipeline/api.h"
#include "core/pipeline/services.h"
#include "core/pipeline/target.h"
#include "core/state/run_commit.h"

namespace toolgate {
namespace pipeline {

struct CallContext {
  CallContext(const Services& services, const ValidateCallRequest& request);
  CallContext(const CallContext&) = delete;
  CallContext& operator=(const CallContext&) = delete;

  // Given.
  const Services& services;
  const ValidateCallRequest& request;
  const GateOptions gate_options;  // From services.options and the request.
  const AuditClock::time_point started = AuditClock::now();

  // The output the stages read: the request's, or (kStream) what its
  // events assembled to. `stream` is null unless the output is streamed.
  OutputKind kind;
  absl::string_view output;
  stream::Assembly assembly;  // Owned when the engine assembled.
  const stream::Assembly* stream = nullptr;

  // Filled by the stages, in this order.
  Target target;                     // resolve
  // How text output is read: the request's, or the run's (resolve).
  extract::TextFormat text_format = extract::TextFormat::kUnspecified;
  extract::CandidateSet candidates;  // extract candidates (text only)
  RawCalls calls;                    // parse
  GateResult gate;                   // resolve tools, schema, policies, decide
  ValidateCallResponse response;     // resolve (ids), decide, repair loop
  bool decided_early = false;        // A stage settled the decision.
  // In a run: what the policy stages found that the run's state decides
  // (kill switch, approval, call budgets), and what the run's state store
  // decided from it in one step ("commit run state"). What the commit
  // spent is given back if the call ends without a decision.
  state::CallPlan plan;
  state::CallOutcome outcome;
  bool committed = false;

  // A stage that found nothing to do for this call (no run, not a stream,
  // no rule of its kind on the called tools) returns NotApplicable(): it
  // leaves no span, so a trace shows the stages that did work. Only the
  // span depends on it, never a decision.
  absl::Status NotApplicable() {
    stage_not_applicable = true;
    return absl::OkStatus();
  }
  bool stage_not_applicable = false;  // Reset by RunStages per stage.
};

using StageFn = absl::Status (*)(CallContext& call);

struct Stage {
  enum class When {
    kUntilDecided,  // Skipped once a stage has decided early.
    kAlways,        // Runs whenever no stage failed (the audit).
  };
  absl::string_view name;
  StageFn run;
  When when = When::kUntilDecided;
};

// Runs `stages` in order over `call`; the first non-OK Status ends it.
absl::Status RunStages(absl::Span<const Stage> stages, CallContext& call);

}  // namespace pipeline
}  // namespace toolgate

#endif  // TOOLGATE_CORE_PIPELINE_CALL_CONTEXT_H_
