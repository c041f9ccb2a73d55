#include "core/pipeline/target.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace toolgate {
namespace {

absl::StatusOr<Target> RunTarget(const RunDirectory& runs,
                                 absl::string_view snapshot_id,
                                 absl::string_view run_id,
                                 absl::string_view run_token,
                                 bool at_commit) {
  auto run = at_commit ? runs.AuthorizeAtCommit(run_id, run_token)
                       : runs.Authorize(run_id, run_token);
  if (!run.ok()) return run.status();
  Target target;
  target.run = *std::move(run);
  target.snapshot = target.run->snapshot_ptr();
  if (!snapshot_id.empty() && snapshot_id != target.snapshot->id()) {
    return absl::InvalidArgumentError(
        absl::StrCat("snapshot_id ", snapshot_id, " is not the snapshot run ",
                     run_id, " pinned (", target.snapshot->id(), ")"));
  }
  return target;
}

}  // namespace

absl::StatusOr<Target> ResolveTarget(const SnapshotStore& snapshots,
                                     const RunDirectory& runs,
                                     absl::string_view snapshot_id,
                                     absl::string_view run_id,
                                     absl::string_view run_token,
                                     bool at_commit) {
  if (!run_id.empty()) {
    return RunTarget(runs, snapshot_id, run_id, run_token, at_commit);
  }
  if (!run_token.empty()) {
    return absl::InvalidArgumentError("run_token given without run_id");
  }
  if (snapshot_id.empty()) {
    return absl::InvalidArgumentError(
        "name the snapshot: a snapshot_id, or a run_id with its run_token");
  }
  auto snapshot = snapshots.Get(snapshot_id);
  if (!snapshot.ok()) return snapshot.status();
  Target target;
  target.snapshot = *std::move(snapshot);
  return target;
}

}  // namespace toolgate
