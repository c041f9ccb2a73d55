// What every RPC handler and pipeline stage may use of the engine: its
// options, its snapshot and run stores, its approvals and its audit trail.
// The Engine owns them; handlers get the stores read-only (they
// synchronize internally), so a stage cannot create or drop a snapshot or
// a run. Approvals are requested and consumed by the pipeline itself.
#ifndef TOOLGATE_CORE_PIPELINE_SERVICES_H_
#define TOOLGATE_CORE_PIPELINE_SERVICES_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/approval/approval_store.h"
#include "core/pipeline/api.h"
#include "core/pipeline/audit_trail.h"
#include "core/pipeline/target.h"
#include "core/run/run_registry.h"
#include "core/snapshot/snapshot.h"
#include "core/state/run_state_store.h"

namespace toolgate {

struct Services {
  const EngineOptions& options;
  const SnapshotStore& snapshots;
  const RunDirectory& runs;
  ApprovalStore& approvals;
  // The mutable state of runs (breaker, kill switch, budgets, approvals
  // requested and used): every change a call makes goes through it.
  state::RunStateStore& run_state;
  const AuditTrail& audit;

  // `at_commit`: the call changes its run's state in one commit that
  // checks the token itself (RunDirectory::AuthorizeAtCommit).
  absl::StatusOr<Target> Resolve(absl::string_view snapshot_id,
                                 absl::string_view run_id,
                                 absl::string_view run_token,
                                 bool at_commit = false) const {
    return ResolveTarget(snapshots, runs, snapshot_id, run_id, run_token,
                         at_commit);
  }
};

}  // namespace toolgate

#endif  // TOOLGATE_CORE_PIPELINE_SERVICES_H_
