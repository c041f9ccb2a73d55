// Stage "breaker": a run whose repair loop has given up is stopped before
// its output is read.
//
// Takes call.target.run (nothing happens in stateless mode). When the
// run's breaker is open (too many consecutive rejects; see
// core/run/run_registry.h) the decision is STOP with stop_reason
// misformat_circuit_open, and call.decided_early skips the stages that
// read and judge the output; the call is still audited. Only ResetRun
// closes the breaker. This is the run state store's hint, read before
// parsing; a store that cannot tell without a round trip says no, and the
// run's commit ("commit run state") STOPs the call the same way.
#ifndef TOOLGATE_CORE_PIPELINE_BREAKER_H_
#define TOOLGATE_CORE_PIPELINE_BREAKER_H_

#include "absl/status/status.h"
#include "core/pipeline/call_context.h"

namespace toolgate {
namespace pipeline {

absl::Status CheckBreaker(CallContext& call);

// The STOP answer of a run whose breaker is open (call.target.run set).
void StopAtOpenBreaker(CallContext& call);

}  // namespace pipeline
}  // namespace toolgate

#endif  // TOOLGATE_CORE_PIPELINE_BREAKER_H_
