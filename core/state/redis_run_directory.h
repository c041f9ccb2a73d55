// Runs kept in Redis (docs/design/state-store.md §3, issue 26), so that
// every replica sees every run: a run opened on one replica is authorized
// and closed on any other.
//
// A run is the hash P{R}:run (redis_layout.h) holding everything Open
// fixed, with the run's idle TTL as its Redis TTL: Redis expires idle runs
// by itself and Sweep has nothing to do. Caps are counted by leases in the
// zsets P{c}:runs and P{c}:tenant:<t> (a TTL has no callback that could
// decrement a counter): a lease expires 1.25 x the run's idle TTL (the one
// it was opened with, whatever the serving replica's) after its last
// refresh, each replica refreshes the leases of the runs it serves every
// quarter of that TTL, and expired leases are trimmed before every count.
// A lease thus outlives its run by at most a quarter of its TTL, never the
// other way round: the caps err on refusing. A refresh never brings back
// a lease the run's close removed (ZADD XX).
//
// Round trips: Open 1 (+1 to delete the run when the caps refuse it);
// Authorize 1, in which the token is checked and the run touched (never
// from a cache), with the lease refresh pipelined when due; a run this
// replica has not seen (or has evicted from its cache) costs one more, to
// refresh its leases once its tenant is known. Close: Authorize + 1.
//
// The run record never changes after Open, so each replica keeps the Run
// it built from it (bounded, evicted arbitrarily): only the rebuilding is
// saved. The Run's mutable state (breaker, kill switch, budgets) is still
// per replica: moving it into the store is call_commit's job (§3.1).
//
// A run pins its snapshot with a third lease, in P{c}:pins:<sid>, taken
// with the others (OpenRun refuses a snapshot the store no longer has,
// atomically with it); DeleteSnapshot refuses while a live one is there.
// A replica resolves a run's snapshot id through `resolve_snapshot`,
// NOT_FOUND when it cannot.
//
// Store failures (unreachable, timeout, error reply, reply of another
// shape) are UNAVAILABLE / DEADLINE_EXCEEDED naming the store; no failure
// is ever taken for an open run.
//
// Thread-safety: internally synchronized.
#ifndef TOOLGATE_CORE_STATE_REDIS_RUN_DIRECTORY_H_
#define TOOLGATE_CORE_STATE_REDIS_RUN_DIRECTORY_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "core/redis/client.h"
#include "core/run/protected_texts.h"
#include "core/run/run_directory.h"
#include "core/run/run_registry.h"
#include "core/state/redis_run_directory_scripts.h"

namespace toolgate {
namespace state {

struct RedisRunDirectoryOptions {
  std::string key_prefix = "toolgate:";  // --state_store_key_prefix
  size_t max_runs = 100000;
  size_t max_runs_per_tenant = 10000;
  absl::Duration idle_ttl = absl::Hours(1);  // At least 1 ms.
  // This replica's protected-text indexes (each replica builds its own).
  size_t max_protected_text_bytes = kDefaultMaxProtectedTextBytes;
  // Runs whose Run this replica keeps built.
  size_t max_cached_runs = 65536;
};

// A snapshot by id, as this replica holds it; NOT_FOUND if it does not.
using SnapshotResolver =
    std::function<absl::StatusOr<std::shared_ptr<const Snapshot>>(
        absl::string_view id)>;

class RedisRunDirectory : public RunDirectory {
 public:
  // `client` must outlive the directory.
  RedisRunDirectory(redis::Client& client, RedisRunDirectoryOptions options,
                    SnapshotResolver resolve_snapshot);

  absl::StatusOr<OpenedRun> Open(
      std::shared_ptr<const Snapshot> snapshot, absl::string_view model,
      std::map<std::string, std::string> context, RunLimits limits,
      std::vector<std::string> protected_texts = {}) override;
  absl::StatusOr<std::shared_ptr<Run>> Authorize(
      absl::string_view run_id, absl::string_view token) const override;
  // A run this replica holds whose leases are not due: no round trip (the
  // commit checks the token); else Authorize.
  absl::StatusOr<std::shared_ptr<Run>> AuthorizeAtCommit(
      absl::string_view run_id, absl::string_view token) const override;
  absl::Status Close(absl::string_view run_id,
                     absl::string_view token) override;
  // Redis expires idle runs and leases are trimmed at every Open: 0.
  size_t Sweep() override { return 0; }

 private:
  struct Cached {
    std::shared_ptr<Run> run;
    std::string tenant;
    absl::Time leased;  // When this replica last refreshed the leases.
    // The token's hash as the store last confirmed it: a cached answer is
    // only ever given to the same token (no run detail to another).
    std::string token_hash;
    // The run's own idle TTL (as opened, whatever this replica's): its
    // leases last 1.25 x that, refreshed every quarter of it, so that they
    // outlive the run's hash on every replica.
    int64_t ttl_ms = 0;
  };

  std::string RunKey(absl::string_view run_id) const;
  std::string TenantKey(absl::string_view tenant) const;
  // The leases of the runs pinning a snapshot (DeleteSnapshot's check).
  std::string PinsKey(absl::string_view snapshot_id) const;
  int64_t TtlMs() const;
  int64_t LeaseMs() const;  // 1.25 x idle_ttl.
  // Whether the leases of `cached`, refreshed at `cached.leased`, are due
  // at `now` (a quarter of the run's TTL).
  static bool LeaseDue(const Cached& cached, absl::Time now);
  // Writes the run and takes its leases, its snapshot's pin among them
  // (one round trip); on a refusal or failure the run is deleted again.
  absl::Status Admit(const std::string& run_id, const std::string& tenant,
                     const std::string& snapshot_id,
                     std::vector<std::string> create_args);
  absl::Status AdmitVerdict(const std::string& tenant,
                            const std::string& snapshot_id,
                            const redis::Reply& reply) const;
  absl::Status LoadVerdict(absl::string_view run_id, const redis::Reply& reply,
                           bool with_fields) const;
  // The run's leases pushed to 1.25 x `ttl_ms` (the run's own TTL).
  redis::ScriptCall LeaseCall(absl::string_view run_id,
                              const std::string& tenant, const Run& run,
                              int64_t ttl_ms) const;
  // The run from its hash's fields (HGETALL's reply); `ttl_ms` gets its
  // idle TTL (this replica's when the hash has none).
  absl::StatusOr<std::shared_ptr<Run>> Build(absl::string_view run_id,
                                             const redis::Reply& fields,
                                             int64_t* ttl_ms) const;
  std::optional<Cached> Lookup(absl::string_view run_id) const;
  void Remember(std::string run_id, Cached cached) const;
  void MarkLeased(absl::string_view run_id, absl::Time when) const;
  void Forget(absl::string_view run_id) const;

  redis::Client& client_;
  const RedisRunDirectoryOptions options_;
  const SnapshotResolver resolve_snapshot_;
  // Mutable: Authorize interns the texts of runs other replicas opened.
  mutable ProtectedTextStore protected_texts_;
  mutable absl::Mutex mu_;
  // Mutable: Authorize (const) remembers the runs it builds.
  mutable absl::flat_hash_map<std::string, Cached> cache_ ABSL_GUARDED_BY(mu_);
};

}  // namespace state
}  // namespace toolgate

#endif  // TOOLGATE_CORE_STATE_REDIS_RUN_DIRECTORY_H_
