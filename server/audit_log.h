// The audit trail: one JSON line per decision; argument values and model
// or tool output only with --audit_payloads.
//
// Lines go to a file (appended) or to stderr ("-"). A write that fails (a
// full disk, a reader that closed the pipe: SIGPIPE is ignored, so that is
// an EPIPE here, not a crash) is counted and never retried.
//
// Thread-safety: Write and Close may be called concurrently; after Close
// nothing more is written, so a process that exits while calls are still
// running never leaves half a line.
#ifndef TOOLGATE_SERVER_AUDIT_LOG_H_
#define TOOLGATE_SERVER_AUDIT_LOG_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/engine/engine.h"

namespace toolgate {
namespace server {

// One audit line (JSON, newline-terminated): audit_id, time (RFC 3339,
// UTC, microseconds), rpc, snapshot_id, run_id, model, decision,
// stop_reason, tools, codes, repairs, latency_us, and payload when the
// record carries one.
std::string AuditLine(const AuditRecord &record);

class AuditLog {
 public:
  // "-" is stderr. An unopenable file is an error at start-up.
  static absl::StatusOr<std::unique_ptr<AuditLog>> Open(
      const std::string &path);
  ~AuditLog();

  // False when the line could not be written.
  bool Write(const AuditRecord &record);
  void Close();
  uint64_t failed_writes() const;

  // A sink for the Engine; `log` must outlive it.
  static AuditSink SinkFor(AuditLog *log);

 private:
  explicit AuditLog(FILE *file, bool owned) : file_(file), owned_(owned) {}

  mutable absl::Mutex mu_;
  FILE *file_ ABSL_GUARDED_BY(mu_);
  const bool owned_;
  uint64_t failed_writes_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_AUDIT_LOG_H_
