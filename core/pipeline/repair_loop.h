// Stage "repair loop": what a decision does to the run's repair loop, and
// the prompt that lets the model fix a rejected call.
//
// Takes the decision in call.response and call.target.run. In a run, an
// ALLOW (or NEEDS_APPROVAL) resets the count of consecutive rejects and a
// REJECT adds one (the breaker opens at the run's limit, see breaker.h);
// response.attempt and attempts_left say where the loop stands. A REJECT
// caused by the kill switch, a budget or an approval alone is no misformat
// and is not counted. The count itself was changed by the run's commit
// (run_commit.h, which also asks whether the caller still waits before a
// reject counts); this stage reports it. Every REJECT, in a run or not,
// gets response.repair_prompt (repair_prompt.h).
#ifndef TOOLGATE_CORE_PIPELINE_REPAIR_LOOP_H_
#define TOOLGATE_CORE_PIPELINE_REPAIR_LOOP_H_

#include "absl/status/status.h"
#include "core/pipeline/call_context.h"

namespace toolgate {
namespace pipeline {

absl::Status RecordLoop(CallContext& call);

}  // namespace pipeline
}  // namespace toolgate

#endif  // TOOLGATE_CORE_PIPELINE_REPAIR_LOOP_H_
