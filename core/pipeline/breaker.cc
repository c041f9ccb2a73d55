#include "core/pipeline/breaker.h"

namespace toolgate {
namespace pipeline {

void StopAtOpenBreaker(CallContext& call) {
  call.response.decision = Decision::kStop;
  call.response.stop_reason = "misformat_circuit_open";
  call.response.attempt = call.target.run->max_consecutive_rejects();
  call.decided_early = true;
}

absl::Status CheckBreaker(CallContext& call) {
  const Run* run = call.target.run.get();
  if (run == nullptr) return call.NotApplicable();
  if (call.services.run_state.BreakerOpenHint(*run)) StopAtOpenBreaker(call);
  return absl::OkStatus();
}

}  // namespace pipeline
}  // namespace toolgate
