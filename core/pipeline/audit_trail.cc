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

AuditTrail::AuditTrail(AuditSink sink)
    : sink_(std::move(sink)), prefix_(RandomHex(8)) {}

absl::StatusOr<std::string> AuditTrail::NewId() const {
  if (!prefix_.ok()) return prefix_.status();
  const uint64_t n = counter_.fetch_add(1) + 1;
  return absl::StrCat("aud_", *prefix_, absl::Hex(n, absl::kZeroPad16));
}

void AuditTrail::Write(AuditRecord record, const Target& target) const {
  if (!sink_) return;
  BoundAuditList(&record.tools);
  BoundAuditList(&record.codes);
  if (target.snapshot != nullptr) record.snapshot_id = target.snapshot->id();
  if (target.run != nullptr) record.run_id = target.run->id();
  sink_(record);
}

}  // namespace toolgate
