#include "server/audit_log.h"

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "core/json/strict_json.h"

namespace toolgate {
namespace server {

absl::StatusOr<std::unique_ptr<AuditLog>> AuditLog::Open(
    const std::string &path) {
  if (path == "-")
    return std::unique_ptr<AuditLog>(new AuditLog(stderr, false));
  FILE *file = std::fopen(path.c_str(), "a");
  if (file == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--audit_log: cannot open ", path, ": ", std::strerror(errno)));
  }
  return std::unique_ptr<AuditLog>(new AuditLog(file, true));
}

AuditLog::~AuditLog() { Close(); }

std::string AuditLine(const AuditRecord &r) {
  Json line = {{"audit_id", r.audit_id},
               {"time", absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", r.time,
                                         absl::UTCTimeZone())},
               {"rpc", r.rpc},
               {"snapshot_id", r.snapshot_id},
               {"run_id", r.run_id},
               {"model", r.model},
               {"decision", r.decision},
               {"stop_reason", r.stop_reason},
               {"tools", r.tools},
               {"codes", r.codes},
               {"repairs", r.repairs},
               {"latency_us", r.latency_us}};
  if (!r.source.empty()) line["source"] = r.source;
  if (!r.approval_id.empty()) line["approval_id"] = r.approval_id;
  if (!r.approver.empty()) line["approver"] = r.approver;
  if (!r.reason.empty()) line["reason"] = r.reason;
  if (!r.mcp_request_id.empty()) line["mcp_request_id"] = r.mcp_request_id;
  if (!r.payload.is_null()) line["payload"] = r.payload;
  return CanonicalJson(line) + "\n";
}

bool AuditLog::Write(const AuditRecord &r) {
  const std::string text = AuditLine(r);
  absl::MutexLock lock(&mu_);
  if (file_ == nullptr ||
      std::fwrite(text.data(), 1, text.size(), file_) != text.size() ||
      std::fflush(file_) != 0) {
    ++failed_writes_;
    if (file_ != nullptr) std::clearerr(file_);
    return false;
  }
  return true;
}

void AuditLog::Close() {
  absl::MutexLock lock(&mu_);
  if (file_ == nullptr) return;
  std::fflush(file_);
  if (owned_) std::fclose(file_);
  file_ = nullptr;
}

uint64_t AuditLog::failed_writes() const {
  absl::MutexLock lock(&mu_);
  return failed_writes_;
}

AuditSink AuditLog::SinkFor(AuditLog *log) {
  return [log](const AuditRecord &record) { return log->Write(record); };
}

}  // namespace server
}  // namespace toolgate
