#include "core/replay/replay.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/pipeline/audit_payload.h"

namespace toolgate {
namespace {

// One audit line, as replay reads it.
struct Recorded {
  std::string audit_id;
  std::string rpc;
  std::string decision;
  std::string stop_reason;
  std::vector<std::string> tools;
  std::vector<std::string> codes;
  Json payload;
};

absl::StatusOr<std::vector<std::string>> Strings(const Json& line,
                                                 const char* member) {
  std::vector<std::string> out;
  auto it = line.find(member);
  if (it == line.end()) return out;
  if (!it->is_array()) {
    return absl::InvalidArgumentError(absl::StrCat(member, " is not a list"));
  }
  for (const Json& item : *it) {
    if (!item.is_string()) {
      return absl::InvalidArgumentError(
          absl::StrCat(member, " holds a non-string"));
    }
    out.push_back(item.get<std::string>());
  }
  return out;
}

absl::StatusOr<Recorded> ReadRecord(const std::string& text) {
  Json line = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!line.is_object()) {
    return absl::InvalidArgumentError("not a JSON object");
  }
  Recorded r;
  for (auto [member, slot] :
       {std::pair{"audit_id", &r.audit_id}, std::pair{"rpc", &r.rpc},
        std::pair{"decision", &r.decision},
        std::pair{"stop_reason", &r.stop_reason}}) {
    auto it = line.find(member);
    if (it != line.end() && it->is_string()) *slot = it->get<std::string>();
  }
  if (r.audit_id.empty() || r.rpc.empty() || r.decision.empty()) {
    return absl::InvalidArgumentError(
        "not an audit record (needs audit_id, rpc and decision)");
  }
  auto tools = Strings(line, "tools");
  if (!tools.ok()) return tools.status();
  auto codes = Strings(line, "codes");
  if (!codes.ok()) return codes.status();
  r.tools = *std::move(tools);
  r.codes = *std::move(codes);
  if (auto it = line.find("payload"); it != line.end()) {
    r.payload = std::move(*it);
  }
  return r;
}

// Why a record cannot be replayed; empty when it can.
std::string SkipReason(const Recorded& r) {
  if (r.rpc != "ValidateToolCall" && r.rpc != "ExtractVerdict" &&
      r.rpc != "ValidateToolOutput") {
    return "unknown_rpc";
  }
  if (r.payload.is_null()) return "no_payload";
  const bool from_run = r.rpc == "ValidateToolCall" &&
                        (r.decision == "STOP" ||
                         std::find(r.codes.begin(), r.codes.end(),
                                   "kill_switch_read_only") != r.codes.end());
  return from_run ? "run_state" : "";
}

bool Same(const Recorded& before, const Redecision& after) {
  if (before.decision != after.decision) return false;
  const bool cut = !before.codes.empty() &&
                   absl::EndsWith(before.codes.back(), " more") &&
                   absl::StartsWith(before.codes.back(), "+");
  if (cut) return true;
  std::vector<std::string> a = before.codes, b = after.codes;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

}  // namespace

absl::StatusOr<ReplayReport> Replay(std::istream& audit_lines,
                                    const Redecide& redecide,
                                    uint64_t max_bytes) {
  int replayed = 0, same = 0;
  std::map<std::string, int> skipped;
  Json changes = Json::array();
  std::string text;
  uint64_t read = 0;
  for (int number = 1; read < max_bytes && std::getline(audit_lines, text);
       ++number) {
    read += text.size() + 1;
    if (text.empty()) continue;
    absl::StatusOr<Recorded> r = ReadRecord(text);
    if (!r.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("audit line ", number, ": ", r.status().message()));
    }
    if (std::string reason = SkipReason(*r); !reason.empty()) {
      ++skipped[reason];
      continue;
    }
    absl::StatusOr<Redecision> now = redecide(r->rpc, r->payload);
    if (!now.ok()) {
      return absl::Status(now.status().code(),
                          absl::StrCat("audit line ", number, " (", r->audit_id,
                                       "): ", now.status().message()));
    }
    ++replayed;
    if (Same(*r, *now)) {
      ++same;
      continue;
    }
    changes.push_back({{"audit_id", r->audit_id},
                       {"rpc", r->rpc},
                       {"tool", absl::StrJoin(r->tools, ",")},
                       {"before", r->decision},
                       {"after", now->decision},
                       {"violations", now->codes}});
  }
  if (audit_lines.bad()) {
    return absl::DataLossError("the audit log could not be read to its end");
  }
  int skipped_total = 0;
  Json reasons = Json::object();
  for (const auto& [reason, n] : skipped) {
    reasons[reason] = n;
    skipped_total += n;
  }
  ReplayReport report;
  report.changed = !changes.empty();
  report.summary = {{"replayed", replayed},
                    {"same", same},
                    {"changed", changes.size()},
                    {"skipped", skipped_total},
                    {"skipped_reasons", std::move(reasons)},
                    {"changes", std::move(changes)}};
  return report;
}

LocalRedecider::LocalRedecider()
    : last_(std::make_unique<AuditRecord>()),
      engine_(EngineOptions(), [last = last_.get()](const AuditRecord& r) {
        *last = r;
        return true;
      }) {}

absl::StatusOr<std::unique_ptr<LocalRedecider>> LocalRedecider::ForManifest(
    absl::string_view manifest_json) {
  std::unique_ptr<LocalRedecider> local(new LocalRedecider());
  auto snapshot = local->engine_.CreateSnapshot(
      manifest_json, ManifestFormat::kAuto, "", NameRule::kLoad);
  if (!snapshot.ok()) return snapshot.status();
  local->snapshot_id_ = (*snapshot)->id();
  return local;
}

absl::StatusOr<Redecision> LocalRedecider::Decide(absl::string_view rpc,
                                                  const Json& payload) {
  absl::Status status;
  std::string body;
  if (rpc == "ValidateToolCall") {
    auto request = CallFromPayload(payload);
    if (!request.ok()) return request.status();
    request->snapshot_id = snapshot_id_;
    status = engine_.ValidateToolCall(*request).status();
  } else if (rpc == "ExtractVerdict") {
    auto request = VerdictFromPayload(payload);
    if (!request.ok()) return request.status();
    request->snapshot_id = snapshot_id_;
    status = engine_.ExtractVerdict(*request).status();
  } else if (rpc == "ValidateToolOutput") {
    auto request = OutputFromPayload(payload, &body);
    if (!request.ok()) return request.status();
    request->snapshot_id = snapshot_id_;
    status = engine_.ValidateToolOutput(*request).status();
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unknown rpc ", rpc));
  }
  if (!status.ok()) return status;
  return Redecision{last_->decision, last_->codes};
}

}  // namespace toolgate
