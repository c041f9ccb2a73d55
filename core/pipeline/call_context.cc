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
  for (const Stage& stage : stages) {
    if (call.decided_early && stage.when == Stage::When::kUntilDecided) {
      continue;
    }
    // Tracing off: one pointer test per stage, nothing timed.
    trace::RequestTrace* trace = call.request.trace;
    const size_t span = trace != nullptr ? trace->StartChild(stage.name) : 0;
    absl::Status status = stage.run(call);
    if (trace != nullptr) trace->EndChild(span);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace pipeline
}  // namespace toolgate
