// The snapshot catalogue in Redis (docs/design/state-store.md §3.5): the
// SnapshotBacking that lets replicas sharing one store find each other's
// snapshots and agree on names. Manifests live in P{c}:snap:<sid>, ids in
// P{c}:snaps, names in P{c}:names (redis_layout.h). Each change (a
// publish with its name, a delete with its names) is one Lua script that
// checks before it writes; reads are single commands.
//
// Round trips: one per Publish, ResolveName, Fetch and ListIds; Delete
// one, or four while runs pin the snapshot (their leases are listed, the
// runs whose hash is gone found, their leases dropped as the delete is
// tried again): an expired run does not hold it, as in the memory store.
// Not done here: eviction in Redis (stored manifests stay until Delete).
// A delete is published to other replicas (they drop their compiled copy
// unless a run of theirs holds it); names, resolved here every time, are
// gone at once.
//
// Thread-safety: safe from any thread (the client pools connections).
#ifndef TOOLGATE_CORE_STATE_REDIS_SNAPSHOT_BACKING_H_
#define TOOLGATE_CORE_STATE_REDIS_SNAPSHOT_BACKING_H_

#include <string>
#include <vector>

#include "core/redis/client.h"
#include "core/snapshot/snapshot_backing.h"

namespace toolgate {
namespace state {

class RedisSnapshotBacking : public SnapshotBacking {
 public:
  // `client` must outlive the backing; `key_prefix` is
  // --state_store_key_prefix.
  explicit RedisSnapshotBacking(redis::Client& client,
                                std::string key_prefix = "toolgate:")
      : client_(client), prefix_(std::move(key_prefix)) {}

  absl::StatusOr<std::string> Publish(absl::string_view id,
                                      const StoredManifest& manifest,
                                      NameRule rule) override;
  absl::StatusOr<std::string> ResolveName(absl::string_view name) override;
  absl::StatusOr<StoredManifest> Fetch(absl::string_view id) override;
  absl::Status Delete(absl::string_view id) override;
  absl::StatusOr<std::vector<std::string>> ListIds(absl::string_view after_id,
                                                   size_t max) override;

 private:
  // KEYS of the writers: the snapshot, the id index, the names.
  std::vector<std::string> Keys(absl::string_view id) const;
  // snap_delete, dropping first the leases `drop` (run id, lease, ...)
  // that are still exactly those.
  absl::StatusOr<redis::Reply> DeleteOnce(absl::string_view id,
                                          const std::vector<std::string>& drop);
  // The runs pinning `id` whose hash is gone (expired without CloseRun),
  // as run id, lease, ...: among the first kMaxPinsChecked leases.
  absl::StatusOr<std::vector<std::string>> GoneRuns(absl::string_view id);

  static constexpr size_t kMaxPinsChecked = 1000;

  redis::Client& client_;
  const std::string prefix_;
};

}  // namespace state
}  // namespace toolgate

#endif  // TOOLGATE_CORE_STATE_REDIS_SNAPSHOT_BACKING_H_
