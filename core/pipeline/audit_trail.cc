#include "core/pipeline/audit_trail.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/util/ids.h"
#include "core/util/truncate.h"

namespace toolgate {
namespace {

// Bounds what an audit line echoes (see kAuditMaxListed).
void BoundAuditList(std::vector<std::string>* list) {
  for (std::string& item : *list) {
    if (item.size() > kMaxToolNameBytes) {
      item = TruncateText(item, kMaxToolNameBytes);
    }
  }
  if (list->size() > kAuditMaxListed) {
    const size_t more = list->size() - kAuditMaxListed;
    list->resize(kAuditMaxListed);
    list->push_back(absl::StrCat("+", more, " more"));
  }
}

}  // namespace

AuditTrail::AuditTrail(AuditSink sink, bool required, bool payloads)
    : sink_(std::move(sink)),
      required_(required),
      payloads_(payloads),
      prefix_(RandomHex(8)) {}

absl::StatusOr<std::string> AuditTrail::NewId() const {
  if (!prefix_.ok()) return prefix_.status();
  const uint64_t n = counter_.fetch_add(1) + 1;
  return absl::StrCat("aud_", *prefix_, absl::Hex(n, absl::kZeroPad16));
}

absl::Status AuditTrail::Write(AuditRecord record, const Target& target,
                               AuditClock::time_point started) const {
  if (!sink_) return absl::OkStatus();
  record.time = absl::Now();
  record.latency_us = std::chrono::duration_cast<std::chrono::microseconds>(
                          AuditClock::now() - started)
                          .count();
  BoundAuditList(&record.tools);
  BoundAuditList(&record.codes);
  BoundAuditList(&record.repairs);
  if (target.snapshot != nullptr) record.snapshot_id = target.snapshot->id();
  if (target.run != nullptr) {
    record.run_id = target.run->id();
    record.model = target.run->model();
  }
  if (sink_(record) || !required_) return absl::OkStatus();
  return absl::UnavailableError(absl::StrCat(
      "the audit record of ", record.audit_id,
      " could not be written and auditing is required (--audit_required): "
      "no decision is returned"));
}

}  // namespace toolgate
