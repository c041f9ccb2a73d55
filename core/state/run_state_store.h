// Where the mutable state of runs lives: the seam between the engine's
// stages and the store that keeps a run's repair loop, kill switch, call
// budgets and approvals.
//
// Decisions are values (CallOutcome); a Status is an infrastructure or
// caller error (an approval cap reached, a store that cannot answer), and
// the engine then answers no decision. The memory store (the default)
// keeps the state in the Run itself; a shared store keeps it where several
// replicas see it (docs/design/state-store.md).
//
// Thread-safety: implementations are safe from any thread; each method is
// one atomic step for its run.
#ifndef TOOLGATE_CORE_STATE_RUN_STATE_STORE_H_
#define TOOLGATE_CORE_STATE_RUN_STATE_STORE_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/output/verdict.h"
#include "core/run/run_registry.h"
#include "core/state/run_commit.h"

namespace toolgate {
namespace state {

class RunStateStore {
 public:
  virtual ~RunStateStore() = default;

  // Whether the run's breaker is known to be open before its output is
  // read (a STOP that skips parsing); false when the store cannot tell
  // without a round trip: CommitCall STOPs then.
  virtual bool BreakerOpenHint(const Run& run) const = 0;

  // Decides the run's part of one call (run_commit.h) and records it.
  virtual absl::StatusOr<CallOutcome> CommitCall(Run& run,
                                                 const CallPlan& plan) = 0;

  // Gives back what `outcome` spent (its approval, its budget charges) when
  // the call ends without an answer after its commit: a call nobody gets
  // an answer for must not use up its run.
  virtual void RefundCall(Run& run, const CallPlan& plan,
                          const CallOutcome& outcome) = 0;

  // Records a tool output's verdict in the run's kill-switch window;
  // returns whether the run is read-only now. `run_token` as in CallPlan.
  virtual absl::StatusOr<bool> RecordOutput(Run& run,
                                            absl::string_view run_token,
                                            output::OutputVerdict verdict) = 0;

  // Closes the breaker and clears the kill switch (budgets are kept).
  virtual absl::Status Reset(Run& run) = 0;

  // One more AwaitApproval call of the run waiting, counted across every
  // replica sharing the store: false when `max` already wait. A true is
  // matched by one EndWait with the same `ticket`; a waiter that never
  // ends (its replica died) stops counting after `timeout`.
  virtual absl::StatusOr<bool> BeginWait(Run& run, int max,
                                         absl::Duration timeout,
                                         std::string* ticket) = 0;
  virtual void EndWait(Run& run, const std::string& ticket) = 0;
};

}  // namespace state
}  // namespace toolgate

#endif  // TOOLGATE_CORE_STATE_RUN_STATE_STORE_H_
