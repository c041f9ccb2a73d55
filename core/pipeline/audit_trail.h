// The audit trail: one record per decision, handed to the engine's sink.
//
// Ids are this trail's random prefix plus a counter: unique across
// replicas without drawing from the system RNG on every call. A record
// echoes only bounded text: each tool name is cut to kMaxToolNameBytes
// (marked "..."), and tools, codes and repairs list at most
// kAuditMaxListed entries, then one "+N more". Argument values and model
// or tool output appear only in a record's payload (audit_payloads).
//
// A record is handed to the sink before the decision is returned, so no
// caller sees a decision the trail does not hold; when the sink fails and
// the trail is `required`, the decision is withheld (UNAVAILABLE).
//
// Thread-safety: all methods may be called concurrently.
#ifndef TOOLGATE_CORE_PIPELINE_AUDIT_TRAIL_H_
#define TOOLGATE_CORE_PIPELINE_AUDIT_TRAIL_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/pipeline/api.h"
#include "core/pipeline/target.h"

namespace toolgate {

// Latency is measured on a monotonic clock.
using AuditClock = std::chrono::steady_clock;

class AuditTrail {
 public:
  // A null sink records nothing (ids are still handed out). `required`:
  // Write fails when the sink does; `payloads`: handlers attach payloads.
  explicit AuditTrail(AuditSink sink, bool required = false,
                      bool payloads = false);
  AuditTrail(const AuditTrail&) = delete;
  AuditTrail& operator=(const AuditTrail&) = delete;

  bool enabled() const { return static_cast<bool>(sink_); }
  // Whether records should carry their request payload.
  bool payloads() const { return payloads_ && enabled(); }

  // A new audit id; an error only when the random prefix could not be
  // drawn at startup (then no decision can be recorded, so none is made).
  absl::StatusOr<std::string> NewId() const;

  // Bounds the record, adds the time, its latency since `started`, the
  // target's snapshot and run ids and the run's model, and hands it to the
  // sink. UNAVAILABLE when the sink failed and the trail is required.
  absl::Status Write(AuditRecord record, const Target& target,
                     AuditClock::time_point started) const;

 private:
  const AuditSink sink_;
  const bool required_;
  const bool payloads_;
  const absl::StatusOr<std::string> prefix_;
  mutable std::atomic<uint64_t> counter_{0};
};

}  // namespace toolgate

#endif  // TOOLGATE_CORE_PIPELINE_AUDIT_TRAIL_H_
