// The stores an Engine keeps its mutable state in when it is not its own
// process's: runs, their state, approvals (docs/design/state-store.md).
// Built by the server from --state_store (server/state_store_flags.h) and
// handed to the Engine; absent, the Engine keeps everything in memory.
#ifndef TOOLGATE_CORE_STATE_SHARED_STATE_H_
#define TOOLGATE_CORE_STATE_SHARED_STATE_H_

#include <functional>
#include <memory>

#include "core/run/run_directory.h"
#include "core/snapshot/snapshot.h"
#include "core/snapshot/snapshot_backing.h"
#include "core/state/approval_ledger.h"
#include "core/state/run_state_store.h"

namespace toolgate {
namespace state {

struct SharedState {
  // Set on the engine's SnapshotStore by the factory (SetBacking).
  std::unique_ptr<SnapshotBacking> snapshots;
  std::unique_ptr<RunDirectory> runs;
  std::unique_ptr<RunStateStore> run_state;
  std::unique_ptr<ApprovalLedger> approvals;
};

// Builds the shared stores over the engine's snapshot store (a replica
// materializing a run looks its snapshot up there). No I/O: a store that
// cannot be reached was refused at start-up, before the engine.
using SharedStateFactory = std::function<SharedState(SnapshotStore& snapshots)>;

}  // namespace state
}  // namespace toolgate

#endif  // TOOLGATE_CORE_STATE_SHARED_STATE_H_
