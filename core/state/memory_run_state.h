// The default run state store: each run's state in its Run (RunState,
// under the run's lock), approvals in the process's ApprovalStore. Nothing
// survives the process and nothing is shared with other processes.
//
// Thread-safety: safe from any thread. CommitCall holds the run's lock for
// the whole step; the approval store's lock nests inside it (lock order:
// run, then approvals; nothing takes them the other way round).
#ifndef TOOLGATE_CORE_STATE_MEMORY_RUN_STATE_H_
#define TOOLGATE_CORE_STATE_MEMORY_RUN_STATE_H_

#include "core/approval/approval_store.h"
#include "core/state/run_state_store.h"

namespace toolgate {
namespace state {

class MemoryRunStateStore : public RunStateStore {
 public:
  // `approvals` must outlive the store.
  explicit MemoryRunStateStore(ApprovalStore& approvals)
      : approvals_(approvals) {}

  bool BreakerOpenHint(const Run& run) const override;
  absl::StatusOr<CallOutcome> CommitCall(Run& run,
                                         const CallPlan& plan) override;
  void RefundCall(Run& run, const CallPlan& plan,
                  const CallOutcome& outcome) override;
  absl::StatusOr<bool> RecordOutput(Run& run, absl::string_view run_token,
                                    output::OutputVerdict verdict) override;
  absl::Status Reset(Run& run) override;
  absl::StatusOr<bool> BeginWait(Run& run, int max, absl::Duration,
                                 std::string*) override {
    return run.BeginWait(max);
  }
  void EndWait(Run& run, const std::string&) override { run.EndWait(); }

 private:
  // Steps 3 and 4 of run_commit.h for an open turn; sets outcome->decision
  // (kAllow when nothing refused). A Status only from an approval request
  // refused by a cap, before anything was written.
  absl::Status CommitOpenTurn(const Run& run, RunState& state,
                              const CallPlan& plan, CallOutcome* outcome);

  ApprovalStore& approvals_;
};

}  // namespace state
}  // namespace toolgate

#endif  // TOOLGATE_CORE_STATE_MEMORY_RUN_STATE_H_
