// SnapshotStore with a SnapshotBacking (snapshot.h, snapshot_backing.h):
// the backing holds manifests and names; this replica's map caches what it
// compiled. Names are never bound locally here, so every local entry is
// evictable unless pinned.
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/snapshot/snapshot.h"
#include "core/snapshot/snapshot_backing.h"

namespace toolgate {

namespace {

absl::StatusOr<std::shared_ptr<const Snapshot>> CompileAs(
    const SnapshotStoreOptions& options, Manifest manifest,
    absl::string_view name, size_t manifest_bytes, const CancelToken* cancel) {
  ResidentBudget budget = options.resident;
  budget.manifest_bytes = manifest_bytes;
  return Snapshot::Compile(std::move(manifest), std::string(name), cancel,
                           budget, options.compile);
}

// The backing answered with something that is not the snapshot asked
// for: the store's fault (tampered, corrupted), never served.
absl::Status NotThatId(absl::string_view id, absl::string_view what) {
  return absl::UnavailableError(
      absl::StrCat("the shared snapshot store holds a manifest for ", id,
                   " that is not that snapshot: ", what));
}

}  // namespace

std::shared_ptr<const Snapshot> SnapshotStore::Held(
    absl::string_view id) const {
  auto it = by_id_.find(id);
  if (it == by_id_.end()) return nullptr;
  Touch(it->second);
  return it->second.snapshot;
}

absl::StatusOr<std::shared_ptr<const Snapshot>> SnapshotStore::CreateShared(
    absl::string_view manifest_json, ManifestFormat format, Manifest manifest,
    const std::string& id, absl::string_view name, NameRule rule,
    const CancelToken* cancel) {
  std::shared_ptr<const Snapshot> held;
  {
    absl::MutexLock lock(&mu_);
    held = Held(id);
  }
  // Compiled before publishing: the backing only ever holds manifests
  // that compile.
  absl::StatusOr<std::shared_ptr<const Snapshot>> compiled = held;
  if (held == nullptr) {
    compiled = CompileAs(options_, std::move(manifest), name,
                         manifest_json.size(), cancel);
    if (!compiled.ok()) return compiled.status();
  }
  StoredManifest stored{std::string(manifest_json), format, std::string(name),
                        manifest_json.size()};
  absl::StatusOr<std::string> first = backing_->Publish(id, stored, rule);
  if (!first.ok()) return first.status();
  if (held != nullptr) return held;
  if (*first != name) {
    // Another replica stored this id first under its name, which every
    // replica's snapshot carries (Snapshot::name is baked in). Rare.
    absl::StatusOr<Manifest> again =
        ParseManifest(manifest_json, format, options_.limits);
    if (!again.ok()) return again.status();
    compiled = CompileAs(options_, *std::move(again), *first,
                         manifest_json.size(), cancel);
    if (!compiled.ok()) return compiled.status();
  }
  const size_t bytes = (*compiled)->compiled_bytes();
  absl::MutexLock lock(&mu_);
  return Insert(*std::move(compiled), bytes, "", NameRule::kClaim);
}

absl::StatusOr<std::shared_ptr<const Snapshot>> SnapshotStore::GetShared(
    absl::string_view id) {
  std::shared_ptr<Flight> flight;
  bool first = false;
  {
    absl::MutexLock lock(&mu_);
    if (std::shared_ptr<const Snapshot> held = Held(id)) return held;
    auto it = flights_.find(id);
    if (it == flights_.end()) {
      it = flights_.emplace(std::string(id), std::make_shared<Flight>()).first;
      first = true;
    }
    flight = it->second;
  }
  // One fetch and compile per id at a time: a burst of runs pinned to a
  // snapshot new to this replica waits on the first instead of compiling
  // it once each.
  if (!first) {
    flight->done.WaitForNotification();
    return flight->result;
  }
  flight->result = FetchAndCompile(std::string(id));
  {
    absl::MutexLock lock(&mu_);
    flights_.erase(flights_.find(id));
  }
  flight->done.Notify();
  return flight->result;
}

absl::StatusOr<std::shared_ptr<const Snapshot>> SnapshotStore::FetchAndCompile(
    const std::string& id) {
  absl::StatusOr<StoredManifest> stored = backing_->Fetch(id);
  if (!stored.ok()) return stored.status();
  absl::StatusOr<Manifest> manifest =
      ParseManifest(stored->manifest, stored->format, options_.limits);
  if (!manifest.ok()) return NotThatId(id, manifest.status().message());
  // Checked before compiling: a manifest that is another id costs no
  // compile.
  if (const std::string got = ManifestId(*manifest); got != id) {
    return NotThatId(id, absl::StrCat("it is ", got));
  }
  absl::StatusOr<std::shared_ptr<const Snapshot>> snapshot = CompileAs(
      options_, *std::move(manifest), stored->name, stored->size, nullptr);
  if (!snapshot.ok()) {
    return absl::UnavailableError(
        absl::StrCat("snapshot ", id, " from the shared store does not "
                     "compile on this replica: ", snapshot.status().message()));
  }
  if ((*snapshot)->id() != id) {
    return NotThatId(id, absl::StrCat("it compiles to ", (*snapshot)->id()));
  }
  const size_t bytes = (*snapshot)->compiled_bytes();
  absl::MutexLock lock(&mu_);
  return Insert(*std::move(snapshot), bytes, "", NameRule::kClaim);
}

absl::Status SnapshotStore::DeleteShared(absl::string_view id) {
  {
    // This replica's pins first (no round trip); the backing checks the
    // runs open on every replica.
    absl::MutexLock lock(&mu_);
    auto it = by_id_.find(id);
    if (it != by_id_.end() && it->second.pins > 0) {
      return SnapshotPinnedError(id, it->second.pins);
    }
  }
  absl::Status deleted = backing_->Delete(id);
  if (!deleted.ok() && !absl::IsNotFound(deleted)) return deleted;
  absl::MutexLock lock(&mu_);
  auto it = by_id_.find(id);
  if (it == by_id_.end()) return deleted;
  // Pinned since the check above: the cached copy stays for its run
  // (content-addressed, so still exactly that manifest); the backing's
  // copy and names are gone either way.
  if (it->second.pins == 0) Erase(it);
  return absl::OkStatus();
}

void SnapshotStore::ForgetDeleted(absl::string_view id) {
  absl::MutexLock lock(&mu_);
  auto it = by_id_.find(id);
  if (it != by_id_.end() && it->second.pins == 0) Erase(it);
}

std::vector<std::shared_ptr<const Snapshot>> SnapshotStore::ListShared(
    absl::string_view after_id, size_t max) {
  std::vector<std::shared_ptr<const Snapshot>> out;
  absl::StatusOr<std::vector<std::string>> ids =
      backing_->ListIds(after_id, max);
  if (!ids.ok()) {
    // ListAfter cannot fail (its signature is the engine's): a listing
    // decides nothing, so the snapshots held here are the best answer.
    absl::MutexLock lock(&mu_);
    auto it = after_id.empty() ? by_id_.begin() : by_id_.upper_bound(after_id);
    for (; it != by_id_.end() && out.size() < max; ++it) {
      out.push_back(it->second.snapshot);
    }
    return out;
  }
  // An id deleted (or unreadable) since it was listed is left out.
  for (const std::string& id : *ids) {
    absl::StatusOr<std::shared_ptr<const Snapshot>> s = GetShared(id);
    if (s.ok()) out.push_back(*std::move(s));
  }
  return out;
}

}  // namespace toolgate
