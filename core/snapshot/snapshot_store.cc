// SnapshotStore: see snapshot.h.
#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/snapshot/snapshot.h"
#include "core/snapshot/snapshot_backing.h"
#include "core/util/ids.h"

namespace toolgate {

namespace {

// kLoad over kRebind over kClaim: the enum's order.
NameRule Stronger(NameRule a, NameRule b) {
  return static_cast<int>(a) >= static_cast<int>(b) ? a : b;
}

}  // namespace

absl::Status NameLoadedError(absl::string_view name) {
  return absl::FailedPreconditionError(
      absl::StrCat("snapshot name \"", name,
                   "\" is loaded from --manifests and "
                   "changes only when the server reloads them"));
}

absl::Status NameBoundError(absl::string_view name,
                            absl::string_view bound_id) {
  return absl::PermissionDeniedError(
      absl::StrCat("snapshot name \"", name, "\" is bound to ", bound_id,
                   "; re-binding a name needs the admin role"));
}

absl::Status SnapshotLoadedError(absl::string_view id,
                                 absl::string_view loaded_name) {
  return absl::FailedPreconditionError(absl::StrCat(
      "snapshot ", id, " is loaded from --manifests as \"", loaded_name,
      "\"; it changes only when the server reloads them"));
}

absl::Status SnapshotPinnedError(absl::string_view id, size_t pins) {
  return absl::FailedPreconditionError(absl::StrCat(
      "snapshot ", id, " is pinned by ", pins, " open run(s); close them first"));
}

absl::Status SnapshotStore::CheckName(absl::string_view name,
                                      const std::string& id,
                                      NameRule rule) const {
  if (name.empty()) return absl::OkStatus();
  auto it = names_.find(name);
  if (it == names_.end() || it->second.id == id) return absl::OkStatus();
  const NameBinding& bound = it->second;
  if (bound.rule == NameRule::kLoad && rule != NameRule::kLoad) {
    return NameLoadedError(name);
  }
  if (rule == NameRule::kClaim) return NameBoundError(name, bound.id);
  return absl::OkStatus();
}

void SnapshotStore::CountName(Entry& entry, NameRule rule, int delta) {
  size_t* count = rule == NameRule::kLoad     ? &entry.loaded_names
                  : rule == NameRule::kRebind ? &entry.admin_names
                                              : nullptr;
  if (count != nullptr) *count = delta > 0 ? *count + 1 : *count - 1;
}

void SnapshotStore::BindName(absl::string_view name, const std::string& id,
                             NameRule rule) {
  if (name.empty()) return;
  Entry& target = by_id_.at(id);
  auto it = names_.find(name);
  if (it == names_.end()) {
    names_.emplace(std::string(name), NameBinding{id, rule});
    target.names.emplace_back(name);
    CountName(target, rule, +1);
    return;
  }
  NameBinding& bound = it->second;
  if (bound.id == id) {
    // Bound again by a stronger rule (an admin naming what an agent
    // named): from now on it holds its snapshot as that rule does.
    const NameRule stronger = Stronger(bound.rule, rule);
    CountName(target, bound.rule, -1);
    CountName(target, stronger, +1);
    bound.rule = stronger;
    return;
  }
  // Re-pointed: the previous snapshot loses the name (and what it held it
  // by); the name itself is never free in between.
  Entry& previous = by_id_.at(bound.id);
  previous.names.erase(
      std::find(previous.names.begin(), previous.names.end(), name));
  CountName(previous, bound.rule, -1);
  bound = NameBinding{id, rule};
  target.names.emplace_back(name);
  CountName(target, rule, +1);
}

void SnapshotStore::Erase(EntryMap::iterator it) {
  for (const std::string& name : it->second.names) names_.erase(name);
  bytes_ -= it->second.bytes;
  by_id_.erase(it);
}

absl::Status SnapshotStore::MakeRoom(size_t bytes) {
  const auto fits = [&](size_t count, size_t held) {
    return count + 1 <= options_.max_snapshots &&
           held + bytes <= options_.max_snapshot_bytes;
  };
  if (fits(by_id_.size(), bytes_)) return absl::OkStatus();
  std::vector<EntryMap::iterator> evictable;
  size_t evictable_bytes = 0;
  for (auto it = by_id_.begin(); it != by_id_.end(); ++it) {
    if (it->second.Evictable()) {
      evictable.push_back(it);
      evictable_bytes += it->second.bytes;
    }
  }
  if (!fits(by_id_.size() - evictable.size(), bytes_ - evictable_bytes)) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "snapshot store is full: ", by_id_.size() - evictable.size(),
        " snapshots of ", bytes_ - evictable_bytes,
        " bytes are pinned by open runs, named by an admin or loaded from "
        "--manifests, and the new snapshot needs ",
        bytes, " bytes (limits: --max_snapshots=", options_.max_snapshots,
        ", --max_snapshot_bytes=", options_.max_snapshot_bytes,
        "); close runs, delete admin-named snapshots or raise the limits"));
  }
  // Usually one eviction: the oldest of the evictable, found by a scan.
  while (!fits(by_id_.size(), bytes_)) {
    auto oldest = std::min_element(
        evictable.begin(), evictable.end(), [](const auto& a, const auto& b) {
          return a->second.last_used < b->second.last_used;
        });
    Erase(*oldest);
    *oldest = evictable.back();
    evictable.pop_back();
    ++evicted_;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const Snapshot>> SnapshotStore::Insert(
    std::shared_ptr<const Snapshot> snapshot, size_t bytes,
    absl::string_view name, NameRule rule) {
  const std::string& id = snapshot->id();
  if (absl::Status s = CheckName(name, id, rule); !s.ok()) return s;
  auto held = by_id_.find(id);  // Another caller may have added it.
  if (held == by_id_.end()) {
    if (absl::Status s = MakeRoom(bytes); !s.ok()) return s;
    held = by_id_.emplace(id, Entry{}).first;
    held->second.snapshot = std::move(snapshot);
    held->second.bytes = bytes;
    bytes_ += bytes;
  }
  Touch(held->second);
  BindName(name, id, rule);
  return held->second.snapshot;
}

absl::StatusOr<std::shared_ptr<const Snapshot>> SnapshotStore::Create(
    absl::string_view manifest_json, ManifestFormat format,
    absl::string_view name, NameRule rule, const CancelToken* cancel) {
  if (absl::StartsWith(name, "sha256:")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "snapshot name \"", name, "\" could be taken for a snapshot id"));
  }
  absl::StatusOr<Manifest> manifest =
      ParseManifest(manifest_json, format, options_.limits);
  if (!manifest.ok()) return manifest.status();
  const std::string id = ManifestId(*manifest);
  if (backing_ != nullptr) {
    return CreateShared(manifest_json, format, *std::move(manifest), id, name,
                        rule, cancel);
  }
  {
    absl::MutexLock lock(&mu_);
    auto it = by_id_.find(id);
    if (it != by_id_.end()) {
      if (auto s = CheckName(name, id, rule); !s.ok()) return s;
      Touch(it->second);
      BindName(name, id, rule);
      return it->second.snapshot;
    }
  }
  // Compile and measure outside the lock: schemas can be large.
  ResidentBudget budget = options_.resident;
  budget.manifest_bytes = manifest_json.size();
  auto snapshot = Snapshot::Compile(*std::move(manifest), std::string(name),
                                    cancel, budget, options_.compile);
  if (!snapshot.ok()) return snapshot.status();
  const size_t bytes = (*snapshot)->compiled_bytes();
  absl::MutexLock lock(&mu_);
  return Insert(*std::move(snapshot), bytes, name, rule);
}

// With a backing, a lookup may fill the cache: logically const. The
// const_cast is sound: only a non-const store can have had SetBacking.
absl::StatusOr<std::shared_ptr<const Snapshot>> SnapshotStore::Get(
    absl::string_view id) const {
  if (backing_ != nullptr) {
    return const_cast<SnapshotStore*>(this)->GetShared(id);
  }
  absl::MutexLock lock(&mu_);
  auto it = by_id_.find(id);
  if (it == by_id_.end()) {
    return absl::NotFoundError(absl::StrCat("no snapshot \"", id, "\""));
  }
  Touch(it->second);
  return it->second.snapshot;
}

absl::StatusOr<std::shared_ptr<const Snapshot>> SnapshotStore::GetByName(
    absl::string_view name) const {
  if (backing_ != nullptr) {  // Never from a local copy of the name.
    absl::StatusOr<std::string> id = backing_->ResolveName(name);
    if (!id.ok()) return id.status();
    return const_cast<SnapshotStore*>(this)->GetShared(*id);
  }
  absl::MutexLock lock(&mu_);
  auto it = names_.find(name);
  if (it == names_.end()) {
    return absl::NotFoundError(
        absl::StrCat("no snapshot named \"", name, "\""));
  }
  const Entry& entry = by_id_.at(it->second.id);
  Touch(entry);
  return entry.snapshot;
}

absl::Status SnapshotStore::Delete(absl::string_view id) {
  if (backing_ != nullptr) return DeleteShared(id);
  absl::MutexLock lock(&mu_);
  auto it = by_id_.find(id);
  if (it == by_id_.end()) {
    return absl::NotFoundError(absl::StrCat("no snapshot \"", id, "\""));
  }
  const Entry& entry = it->second;
  if (entry.pins > 0) return SnapshotPinnedError(id, entry.pins);
  if (entry.loaded_names > 0) {
    // A loop, not a lambda: clang's thread-safety analysis sees mu_ held
    // here but not inside a lambda.
    absl::string_view loaded = "?";
    for (const std::string& n : entry.names) {
      if (names_.at(n).rule == NameRule::kLoad) {
        loaded = n;
        break;
      }
    }
    return SnapshotLoadedError(id, loaded);
  }
  Erase(it);
  return absl::OkStatus();
}

absl::Status SnapshotStore::Pin(absl::string_view id) {
  absl::MutexLock lock(&mu_);
  auto it = by_id_.find(id);
  if (it == by_id_.end()) {
    return absl::NotFoundError(absl::StrCat(
        "no snapshot \"", id, "\" (evicted or deleted meanwhile)"));
  }
  ++it->second.pins;
  Touch(it->second);
  return absl::OkStatus();
}

void SnapshotStore::Unpin(absl::string_view id) {
  absl::MutexLock lock(&mu_);
  auto it = by_id_.find(id);
  // A pinned snapshot cannot be evicted or deleted: always found.
  if (it == by_id_.end() || it->second.pins == 0) return;
  --it->second.pins;
  Touch(it->second);
}

size_t SnapshotStore::size() const {
  absl::MutexLock lock(&mu_);
  return by_id_.size();
}

size_t SnapshotStore::bytes() const {
  absl::MutexLock lock(&mu_);
  return bytes_;
}

uint64_t SnapshotStore::evicted() const {
  absl::MutexLock lock(&mu_);
  return evicted_;
}

std::vector<std::shared_ptr<const Snapshot>> SnapshotStore::ListAfter(
    absl::string_view after_id, size_t max) const {
  if (backing_ != nullptr) {
    return const_cast<SnapshotStore*>(this)->ListShared(after_id, max);
  }
  absl::MutexLock lock(&mu_);
  std::vector<std::shared_ptr<const Snapshot>> out;
  auto it = after_id.empty() ? by_id_.begin() : by_id_.upper_bound(after_id);
  for (; it != by_id_.end() && out.size() < max; ++it) {
    out.push_back(it->second.snapshot);
  }
  return out;
}

}  // namespace toolgate
