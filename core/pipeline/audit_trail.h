// The audit trail: one record per decision, handed to the engine's sink.
//
// Ids are this trail's random prefix plus a counter: unique across
// replicas without drawing from the system RNG on every call. A record
// echoes only bounded text: each tool name is cut to kMaxToolNameBytes
// (marked "..."), and tools and codes list at most kAuditMaxListed
// entries, then one "+N more". It never holds argument values.
//
// Thread-safety: all methods may be called concurrently.
#ifndef TOOLGATE_CORE_PIPELINE_AUDIT_TRAIL_H_
#define TOOLGATE_CORE_PIPELINE_AUDIT_TRAIL_H_

#include <atomic>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "core/pipeline/api.h"
#include "core/pipeline/target.h"

namespace toolgate {

class AuditTrail {
 public:
  // A null sink records nothing (ids are still handed out).
  explicit AuditTrail(AuditSink sink);
  AuditTrail(const AuditTrail&) = delete;
  AuditTrail& operator=(const AuditTrail&) = delete;

  bool enabled() const { return static_cast<bool>(sink_); }

  // A new audit id; an error only when the random prefix could not be
  // drawn at startup (then no decision can be recorded, so none is made).
  absl::StatusOr<std::string> NewId() const;

  // Bounds the record, adds the target's snapshot and run ids, and hands
  // it to the sink.
  void Write(AuditRecord record, const Target& target) const;

 private:
  const AuditSink sink_;
  const absl::StatusOr<std::string> prefix_;
  mutable std::atomic<uint64_t> counter_{0};
};

}  // namespace toolgate

#endif  // TOOLGATE_CORE_PIPELINE_AUDIT_TRAIL_H_
