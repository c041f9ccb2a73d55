#include "core/pipeline/call_context.h"

namespace toolgate {
namespace pipeline {
namespace {

GateOptions GateOptionsFor(const EngineOptions& options,
                           const ValidateCallRequest& request) {
  GateOptions gate;
  gate.max_violations_per_call = options.max_violations_per_call;
  gate.max_calls_per_output = options.max_calls_per_output;
  gate.cancel = &request.cancel;
  return gate;
}

}  // namespace

CallContext::CallContext(const Services& services,
                         const ValidateCallRequest& request)
    : services(services),
      request(request),
      gate_options(GateOptionsFor(services.options, request)),
      kind(request.kind),
      output(request.output) {}

absl::Status RunStages(absl::Span<const Stage> stages, CallContext& call) {
  // Tracing off: one pointer test per stage, nothing timed. On: one clock
  // read per stage that applied (a stage's end is the next one's start;
  // one that did not apply is too short to matter and folds into the
  // next), and the span names the stage table's constant, uncopied.
  trace::RequestTrace* trace = call.request.trace;
  if (trace != nullptr && !trace->recording()) trace = nullptr;
  int64_t now = trace != nullptr ? trace::RequestTrace::ClockNanos() : 0;
  for (const Stage& stage : stages) {
    if (call.decided_early && stage.when == Stage::When::kUntilDecided) {
      continue;
    }
    call.stage_not_applicable = false;
    absl::Status status = stage.run(call);
    if (trace != nullptr && !call.stage_not_applicable) {
      const int64_t end = trace::RequestTrace::ClockNanos();
      trace->EndChildAt(trace->StartStage(stage.name, now), end);
      now = end;
    }
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace pipeline
}  // namespace toolgate
