#include "core/pipeline/repair_loop.h"

#include "core/pipeline/repair_prompt.h"

namespace toolgate {
namespace pipeline {

absl::Status RecordLoop(CallContext& call) {
  ValidateCallResponse& response = call.response;
  const Run* run = call.target.run.get();
  const bool rejected = response.decision == Decision::kReject;
  if (run == nullptr && !rejected) return call.NotApplicable();
  if (call.committed && call.outcome.loop_recorded) {
    response.attempt = call.outcome.loop.attempt;
    response.attempts_left = call.outcome.loop.attempts_left;
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
