// Where a SnapshotStore shared by several replicas keeps the truth about
// snapshots and their names (docs/design/state-store.md §3.5): manifests
// by id, and which name points at which id under which NameRule. The
// store's own map then only caches compiled snapshots (it may evict any
// unpinned one: the backing can give it back).
//
// No transport types here: an implementation (core/state's Redis one)
// answers UNAVAILABLE / DEADLINE_EXCEEDED when it cannot answer, and the
// SnapshotStore call fails with that status; it never answers from what
// this replica happens to remember.
//
// Thread-safety: implementations must be safe to call from any thread.
#ifndef TOOLGATE_CORE_SNAPSHOT_SNAPSHOT_BACKING_H_
#define TOOLGATE_CORE_SNAPSHOT_SNAPSHOT_BACKING_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/manifest/manifest.h"
#include "core/snapshot/snapshot.h"

namespace toolgate {

// A manifest as its first Create received it: what any replica needs to
// compile the same snapshot (same id, name and resident budget).
struct StoredManifest {
  std::string manifest;  // The bytes as submitted.
  ManifestFormat format = ManifestFormat::kAuto;
  std::string name;      // The name given when the id was first stored.
  size_t size = 0;       // ResidentBudget::manifest_bytes.
};

class SnapshotBacking {
 public:
  virtual ~SnapshotBacking() = default;

  // Stores `manifest` under `id` unless the id is held already (idempotent
  // per id), and binds a non-empty `manifest.name` to `id` under `rule`,
  // in one atomic step whose name check comes first: a refused name
  // (NameLoadedError, NameBoundError) stores nothing, as a refused local
  // Create keeps nothing. Returns the id's stored first name, which is
  // `manifest.name` unless another replica stored the id first.
  virtual absl::StatusOr<std::string> Publish(absl::string_view id,
                                              const StoredManifest& manifest,
                                              NameRule rule) = 0;

  // The id `name` points at; NOT_FOUND when it points nowhere.
  virtual absl::StatusOr<std::string> ResolveName(absl::string_view name) = 0;

  // The manifest stored under `id`; NOT_FOUND when none is.
  virtual absl::StatusOr<StoredManifest> Fetch(absl::string_view id) = 0;

  // Removes `id` and every name pointing at it, atomically. NOT_FOUND when
  // absent; FAILED_PRECONDITION (SnapshotLoadedError) while a kLoad name
  // points at it, or (SnapshotPinnedError) while a run open on any
  // replica pins it.
  virtual absl::Status Delete(absl::string_view id) = 0;

  // Up to `max` stored ids after `after_id` ("" = from the start), in the
  // byte order std::map<std::string> sorts them in.
  virtual absl::StatusOr<std::vector<std::string>> ListIds(
      absl::string_view after_id, size_t max) = 0;
};

// The refusals of the name rules (NameRule), shared so that a refusal
// reads the same whether this replica or the backing found it.
absl::Status NameLoadedError(absl::string_view name);
absl::Status NameBoundError(absl::string_view name, absl::string_view bound_id);
absl::Status SnapshotLoadedError(absl::string_view id,
                                 absl::string_view loaded_name);
// FAILED_PRECONDITION for a snapshot `pins` open runs pin (Delete).
absl::Status SnapshotPinnedError(absl::string_view id, size_t pins);

}  // namespace toolgate

#endif  // TOOLGATE_CORE_SNAPSHOT_SNAPSHOT_BACKING_H_
