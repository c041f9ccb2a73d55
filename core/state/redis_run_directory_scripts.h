// The Lua scripts of the Redis run directory (redis_run_directory.h;
// docs/design/state-store.md §3.1) and the one way they are sent: several
// EVALSHAs pipelined in one round trip. Each script touches the keys of
// ONE hash tag only ({R}: one run; {c}: the cross-run leases), so every
// command stays valid behind a Redis Cluster proxy; an operation needing
// both pipelines two scripts.
//
// Lease scores are the Redis server's TIME in ms, so that replicas with
// skewed clocks agree on every expiry.
//
// Thread-safety: the scripts are immutable constants.
#ifndef TOOLGATE_CORE_STATE_REDIS_RUN_DIRECTORY_SCRIPTS_H_
#define TOOLGATE_CORE_STATE_REDIS_RUN_DIRECTORY_SCRIPTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/redis/client.h"

namespace toolgate {
namespace state {

// run_create {R}. KEYS: run. ARGV: idle ttl ms, then field, value, ...
// Writes the run hash and its TTL. Returns "OK".
const redis::Script& RunCreateScript();

// run_admit {c}. KEYS: runs, tenant:<t>, pins:<sid>, snap:<sid>. ARGV:
// run id, max_runs, max_runs_per_tenant, lease ms. {"NOT_FOUND"} when the
// snapshot is no longer stored; else trims expired leases, then either
// {"RESOURCE_EXHAUSTED", "runs"|"tenant", held} (nothing written)
// or {"OK"} with the three leases added (expiry = server now + lease ms).
// Each zset expires with its newest lease.
const redis::Script& RunAdmitScript();

// run_load {R}. KEYS: run. ARGV: hex SHA-256 of the token, "1" to return
// the hash. {"NOT_FOUND"} | {"PERMISSION_DENIED"} (nothing written) |
// {"OK", [field, value, ...] or nothing}, the run's TTL renewed.
const redis::Script& RunLoadScript();

// run_lease {c}. KEYS: runs, tenant:<t>, pins:<sid>. ARGV: run id, lease
// ms (1.25 x the run's own TTL). Pushes the run's leases present to
// server now + lease ms (ZADD XX GT: a lease removed by the run's close
// never comes back).
const redis::Script& RunLeaseScript();

}  // namespace state
}  // namespace toolgate

#endif  // TOOLGATE_CORE_STATE_REDIS_RUN_DIRECTORY_SCRIPTS_H_
