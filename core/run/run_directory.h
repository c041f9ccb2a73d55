// Which runs are open and who may use them: the seam between the engine
// and where runs are recorded. RunRegistry (run_registry.h) keeps them in
// the process; a shared store keeps them where every replica sees them
// (core/state, docs/design/state-store.md).
//
// Whatever the store, a run is named by run_id and used only with the
// run_token handed out once at Open (only its hash is kept); a wrong token
// is PERMISSION_DENIED, never "no run". An idle run expires and is then
// NOT_FOUND, as a closed one.
//
// Thread-safety: implementations are safe from any thread.
#ifndef TOOLGATE_CORE_RUN_RUN_DIRECTORY_H_
#define TOOLGATE_CORE_RUN_RUN_DIRECTORY_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/snapshot/snapshot.h"

namespace toolgate {

class Run;
struct RunLimits;
struct OpenedRun;

class RunDirectory {
 public:
  virtual ~RunDirectory() = default;

  // INVALID_ARGUMENT for limits, model, context or protected texts out of
  // bounds (run_registry.h); RESOURCE_EXHAUSTED past --max_runs, the
  // tenant's cap or the protected-text budget; NOT_FOUND if the snapshot
  // is gone; UNAVAILABLE when a shared store cannot answer.
  virtual absl::StatusOr<OpenedRun> Open(
      std::shared_ptr<const Snapshot> snapshot, absl::string_view model,
      std::map<std::string, std::string> context, RunLimits limits,
      std::vector<std::string> protected_texts) = 0;

  // INVALID_ARGUMENT for an empty token, NOT_FOUND for an unknown, closed
  // or expired run, PERMISSION_DENIED for a token that does not match,
  // UNAVAILABLE when a shared store cannot answer. Marks the run used.
  virtual absl::StatusOr<std::shared_ptr<Run>> Authorize(
      absl::string_view run_id, absl::string_view token) const = 0;

  // As Authorize, but a shared store may answer from this replica's copy
  // of the run without a round trip, leaving the token check and the
  // touch to the call's one state change (RunStateStore::CommitCall or
  // RecordOutput, which get the token): only for calls that make one.
  virtual absl::StatusOr<std::shared_ptr<Run>> AuthorizeAtCommit(
      absl::string_view run_id, absl::string_view token) const {
    return Authorize(run_id, token);
  }

  virtual absl::Status Close(absl::string_view run_id,
                             absl::string_view token) = 0;

  // Closes runs idle past their TTL (a shared store lets them expire by
  // itself and returns 0); returns how many.
  virtual size_t Sweep() = 0;
};

}  // namespace toolgate

#endif  // TOOLGATE_CORE_RUN_RUN_DIRECTORY_H_
