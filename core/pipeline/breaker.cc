#include "core/pipeline/breaker.h"

namespace toolgate {
namespace pipeline {

absl::Status CheckBreaker(CallContext& call) {
  const Run* run = call.target.run.get();
  if (run == nullptr) return call.NotApplicable();
  if (!run->Current().breaker_open) return absl::OkStatus();
  call.response.decision = Decision::kStop;
  call.response.stop_reason = "misformat_circuit_open";
  call.response.attempt = run->max_consecutive_rejects();
  call.decided_early = true;
  return absl::OkStatus();
}

}  // namespace pipeline
}  // namespace toolgate
