// Which snapshot (and run) a call is about: the first stage of every RPC
// that names one.
//
// A run_id with its run_token names the run and the snapshot it pinned; a
// snapshot_id alone names a snapshot in stateless mode. Everything else is
// the caller's error, as absl::Status: NOT_FOUND, PERMISSION_DENIED (a
// wrong token is never "no run": a caller must not drop to stateless mode
// by garbling it) or INVALID_ARGUMENT. Nothing here decides about model
// output.
//
// Thread-safety: safe from any thread (the stores synchronize).
#ifndef TOOLGATE_CORE_PIPELINE_TARGET_H_
#define TOOLGATE_CORE_PIPELINE_TARGET_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/run/run_directory.h"
#include "core/run/run_registry.h"
#include "core/snapshot/snapshot.h"

namespace toolgate {

struct Target {
  std::shared_ptr<const Snapshot> snapshot;  // Null only when none named.
  std::shared_ptr<Run> run;                  // Null in stateless mode.
};

absl::StatusOr<Target> ResolveTarget(const SnapshotStore& snapshots,
                                     const RunDirectory& runs,
                                     absl::string_view snapshot_id,
                                     absl::string_view run_id,
                                     absl::string_view run_token,
                                     bool at_commit = false);

}  // namespace toolgate

#endif  // TOOLGATE_CORE_PIPELINE_TARGET_H_
