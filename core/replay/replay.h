// Audit replay: decide every recorded call again, against another snapshot,
// and report what changed. This is how a team tests a model, schema or
// toolgate upgrade against last week's traffic before it ships.
//
// The records come from an audit log written with --audit_payloads (one
// JSON object per line, server/audit_log.h). Each is decided again by a
// Redecide function: in process against a manifest (LocalRedecider), or by
// a server (client/replay_remote.h). A record is compared on its decision
// and its violation codes (as a set); when the record had to cut its code
// list ("+N more"), on its decision only.
//
// Skipped, with a reason count, never counted as "same":
//   no_payload   written without --audit_payloads: nothing to decide again
//   run_state    the decision came from the run, not the output (an open
//                breaker, a tripped kill switch): replay is stateless
//   unknown_rpc  a record of an RPC replay does not know
//
// A line that is not an audit record, or a call the new snapshot cannot be
// asked about (Redecide fails), is an error: a replay that silently drops
// records would report "nothing changed" for traffic it never checked.
//
// Thread-safety: Replay is reentrant; a LocalRedecider is not shared.
#ifndef TOOLGATE_CORE_REPLAY_REPLAY_H_
#define TOOLGATE_CORE_REPLAY_REPLAY_H_

#include <cstdint>
#include <functional>
#include <istream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/engine/engine.h"
#include "core/json/strict_json.h"

namespace toolgate {

// What a recorded call decides now, named as the audit names decisions.
struct Redecision {
  std::string decision;
  std::vector<std::string> codes;
};

// Decides the call of one record again: `rpc` and `payload` as recorded.
using Redecide = std::function<absl::StatusOr<Redecision>(absl::string_view rpc,
                                                          const Json& payload)>;

struct ReplayReport {
  // {"replayed","same","changed","skipped","skipped_reasons":{reason:N},
  //  "changes":[{"audit_id","rpc","tool","before","after","violations"}]}
  Json summary;
  bool changed = false;
};

// Reads at most `max_bytes` (whole lines): the size the audit log had when
// replay began. A server that audits to the file being replayed appends a
// record for every call replay makes; those are not replayed again.
absl::StatusOr<ReplayReport> Replay(
    std::istream& audit_lines, const Redecide& redecide,
    uint64_t max_bytes = std::numeric_limits<uint64_t>::max());

// Decides recorded calls in process, against a manifest compiled here with
// the engine's default limits.
class LocalRedecider {
 public:
  static absl::StatusOr<std::unique_ptr<LocalRedecider>> ForManifest(
      absl::string_view manifest_json);

  absl::StatusOr<Redecision> Decide(absl::string_view rpc, const Json& payload);

 private:
  LocalRedecider();

  // The engine reports each decision through its audit sink, so replay
  // reads decisions exactly as the audit trail wrote them.
  std::unique_ptr<AuditRecord> last_;
  Engine engine_;
  std::string snapshot_id_;
};

}  // namespace toolgate

#endif  // TOOLGATE_CORE_REPLAY_REPLAY_H_
