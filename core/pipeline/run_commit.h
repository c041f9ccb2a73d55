// Stage "commit run state": the one step in which a call in a run changes
// its run's state (core/state/run_commit.h).
//
// Runs after every policy stage and before "decide". It completes the
// plan the policy stages started (whether the turn is allowable, whether
// a reject would count toward the breaker), asks whether the caller still
// waits (CheckNow only where a reject would count: work done for nobody
// is no reject), and hands the plan to the run's state store once. The
// outcome comes back as today's answers: STOP at an open breaker (decided
// early: the output's calls are dropped from the answer), kill-switch
// vetoes, the approval requested, used or refused, the budget veto; and
// "repair loop" reports the loop state the store recorded. Nothing happens
// in stateless mode. A Status (an approval cap, a store that cannot answer)
// ends the call with no decision and nothing spent.
#ifndef TOOLGATE_CORE_PIPELINE_RUN_COMMIT_H_
#define TOOLGATE_CORE_PIPELINE_RUN_COMMIT_H_

#include "absl/status/status.h"
#include "core/pipeline/call_context.h"

namespace toolgate {
namespace pipeline {

absl::Status CommitRunState(CallContext& call);

}  // namespace pipeline
}  // namespace toolgate

#endif  // TOOLGATE_CORE_PIPELINE_RUN_COMMIT_H_
