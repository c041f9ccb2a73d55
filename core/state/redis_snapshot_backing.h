// The snapshot catalogue in Redis (docs/design/state-store.md §3.5): the
// SnapshotBacking that lets replicas sharing one store find each other's
// snapshots and agree on names. Manifests live in P{c}:snap:<sid>, ids in
// P{c}:snaps, names in P{c}:names (redis_layout.h). Each change (a
// publish with its name, a delete with its names) is one Lua script that
// checks before it writes; reads are single commands.
//
// Round trips: one per Publish, ResolveName, Fetch, Delete and ListIds.
// Not done here: eviction in Redis (stored manifests stay until Delete),
// publishing deletes to other replicas (they keep serving their compiled
// copy by id, which is still exactly that manifest; names, resolved here
// every time, are gone at once), and cross-replica pins.
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
  absl::Status Unexpected(absl::string_view operation) const;

  redis::Client& client_;
  const std::string prefix_;
};

}  // namespace state
}  // namespace toolgate

#endif  // TOOLGATE_CORE_STATE_REDIS_SNAPSHOT_BACKING_H_
