// Where the Redis state store keeps what (docs/design/state-store.md §3):
// key names and hash fields, shared by every script and class of the
// store, so that one run's keys agree wherever they are written.
//
// Everything one run decides with shares the hash tag {RUN_ID} (one slot:
// the layout works behind Redis Cluster proxies, and one script can change
// it atomically); counts across runs share the tag {c}. P is
// --state_store_key_prefix (default "toolgate:").
//
//   P{R}:run            hash   the run (fields below); PEXPIRE idle TTL,
//                              renewed by every call of the run
//   P{R}:apr:<id>       hash   one approval (kApproval* fields)
//   P{R}:apr:pending    zset   the run's pending approval ids by expiry ms
//   P{R}:apr:same       hash   tool "\0" sha1(arguments) -> pending id
//   P{R}:apr:ids        zset   all the run's approval ids by creation ms
//   P{R}:apr:waits      zset   the run's AwaitApproval slots by deadline ms
//   P{c}:runs           zset   open run ids by lease expiry ms
//   P{c}:tenant:<t>     zset   the tenant's open run ids, likewise
//   P{c}:apri:<id>      string approval id -> its run id
//   P{c}:apr:tenant:<t> zset   the tenant's pending approval ids by expiry
//   P{c}:apr:all        zset   every approval held, by when it may go
//   P:events            pub/sub an approval id, published when decided
//   P:grant:<g>         string a mesh grant -> "<run id>\n<run token>"
//   P{c}:snap:<sid>     hash   one snapshot's manifest (kSnapshot* fields)
//   P{c}:snaps          zset   every stored snapshot id, score 0 (listed
//                              in id order by ZRANGEBYLEX)
//   P{c}:names          hash   snapshot name -> "<claim|rebind|load>:<sid>"
//                              (the NameRule that bound it, and the id)
//
// Times are the Redis server's (TIME), in milliseconds, so that replicas
// with skewed clocks agree on every expiry.
#ifndef TOOLGATE_CORE_STATE_REDIS_LAYOUT_H_
#define TOOLGATE_CORE_STATE_REDIS_LAYOUT_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace toolgate {
namespace state {
namespace redis_layout {

inline std::string RunKey(absl::string_view prefix, absl::string_view run) {
  return absl::StrCat(prefix, "{", run, "}:run");
}
// A run's approval keys, P{R}:apr:*.
inline std::string ApprovalKey(absl::string_view prefix, absl::string_view run,
                               absl::string_view approval) {
  return absl::StrCat(prefix, "{", run, "}:apr:", approval);
}
inline std::string PendingApprovalsKey(absl::string_view prefix,
                                       absl::string_view run) {
  return absl::StrCat(prefix, "{", run, "}:apr:pending");
}
inline std::string SameApprovalKey(absl::string_view prefix,
                                   absl::string_view run) {
  return absl::StrCat(prefix, "{", run, "}:apr:same");
}
inline std::string RunApprovalIdsKey(absl::string_view prefix,
                                     absl::string_view run) {
  return absl::StrCat(prefix, "{", run, "}:apr:ids");
}
inline std::string RunWaitsKey(absl::string_view prefix,
                               absl::string_view run) {
  return absl::StrCat(prefix, "{", run, "}:apr:waits");
}
inline std::string RunsKey(absl::string_view prefix) {
  return absl::StrCat(prefix, "{c}:runs");
}
inline std::string TenantRunsKey(absl::string_view prefix,
                                 absl::string_view tenant) {
  return absl::StrCat(prefix, "{c}:tenant:", tenant);
}
inline std::string TenantApprovalsKey(absl::string_view prefix,
                                      absl::string_view tenant) {
  return absl::StrCat(prefix, "{c}:apr:tenant:", tenant);
}
inline std::string AllApprovalsKey(absl::string_view prefix) {
  return absl::StrCat(prefix, "{c}:apr:all");
}
// Bytes of each approval held (id -> bytes) and their "total".
inline std::string ApprovalBytesKey(absl::string_view prefix) {
  return absl::StrCat(prefix, "{c}:apr:bytes");
}
inline std::string GrantKey(absl::string_view prefix, absl::string_view grant) {
  return absl::StrCat(prefix, "grant:", grant);
}
inline std::string EventsChannel(absl::string_view prefix) {
  return absl::StrCat(prefix, "events");
}
inline std::string ApprovalIndexKey(absl::string_view prefix,
                                    absl::string_view approval) {
  return absl::StrCat(prefix, "{c}:apri:", approval);
}

// The snapshot catalogue (core/snapshot/snapshot_backing.h), all under
// {c} so that one script can change a snapshot and its names together.
inline std::string SnapshotKey(absl::string_view prefix,
                               absl::string_view snapshot) {
  return absl::StrCat(prefix, "{c}:snap:", snapshot);
}
inline std::string SnapshotsKey(absl::string_view prefix) {
  return absl::StrCat(prefix, "{c}:snaps");
}
inline std::string SnapshotNamesKey(absl::string_view prefix) {
  return absl::StrCat(prefix, "{c}:names");
}
// The leases of the open runs that pin a snapshot (zset: run id -> lease
// expiry ms, as P{c}:runs): DeleteSnapshot is refused while one is live,
// whatever replica the run was opened on.
inline std::string SnapshotPinsKey(absl::string_view prefix,
                                   absl::string_view snapshot) {
  return absl::StrCat(prefix, "{c}:pins:", snapshot);
}
// Lua: now_ms(), the server's clock in ms (every time above is one), for
// the scripts that read it: prepended to them after their "#!lua" line.
// (Redis 7 replicates a script's effects, so a script may read TIME and
// still write.)
inline constexpr char kLuaNowMs[] = R"lua(
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
)lua";

// Fields of P{c}:snap:<sid>, written once when the id is first stored.
inline constexpr char kSnapshotManifest[] = "manifest";  // As submitted.
inline constexpr char kSnapshotFormat[] = "format";  // ManifestFormat, int.
inline constexpr char kSnapshotName[] = "name";      // The first name.
inline constexpr char kSnapshotSize[] = "size";      // Manifest bytes.

// Fields of P{R}:run written at OpenRun, never changed.
inline constexpr char kToken[] = "tok";        // SHA-256 hex of the token.
inline constexpr char kSnapshot[] = "snap";    // Snapshot id.
inline constexpr char kModel[] = "model";
inline constexpr char kTenant[] = "tenant";
inline constexpr char kContext[] = "ctx";      // JSON object.
inline constexpr char kMaxRejects[] = "maxrej";
inline constexpr char kKillThreshold[] = "ks_thr";
inline constexpr char kKillWindow[] = "ks_win";
inline constexpr char kTextFormat[] = "fmt";   // extract::TextFormat, int.
inline constexpr char kProtectedTexts[] = "texts";  // JSON array.
inline constexpr char kIdleTtlMs[] = "ttl";    // The run's idle TTL, ms.
// Fields the run's calls change (absent = 0 / empty).
inline constexpr char kRejects[] = "rej";
inline constexpr char kBreaker[] = "brk";      // "1": open.
inline constexpr char kReadOnly[] = "ro";      // "1": kill switch latched.
inline constexpr char kKillRing[] = "ks_ring"; // '0'/'1' per slot.
inline constexpr char kKillNext[] = "ks_pos";
inline constexpr char kKillFilled[] = "ks_fill";
inline constexpr char kKillInvalid[] = "ks_inv";
// Budget counters: "b:t:" + tool, "b:c:" + side-effect class (0..2).
inline constexpr char kToolBudget[] = "b:t:";
inline constexpr char kClassBudget[] = "b:c:";

}  // namespace redis_layout
}  // namespace state
}  // namespace toolgate

#endif  // TOOLGATE_CORE_STATE_REDIS_LAYOUT_H_
